package semantic

import (
	"fmt"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// leaf compiles one measure, aggregated by the group columns under alias,
// over its model's rows joined to the models the groups and filters name,
// filtered by the query's where and filters. With off, the rows meet the
// time spine first (offset_window, offset_to_grain, a cumulative window),
// and metric_time is the spine's day.
func (c *compiler) leaf(me *Measure, filters []*filter, alias string, off *offset) (string, error) {
	s := newSource(me, c.alias())
	aggTime := func() (string, error) { return s.aggTime() }
	metricTime := func(grain string) (string, error) {
		t, err := aggTime()
		if err != nil {
			return "", err
		}
		return truncSQL(t, grain), nil
	}
	first, on := "", ""
	var where []string
	if off != nil {
		if c.metricTimes > 1 {
			return "", bqerr.Invalid(fmt.Sprintf("measure %s is offset or cumulated over time, which needs metric_time at one grain", me.Name), "Group by metric_time at one grain.")
		}
		if c.m.spine == nil {
			return "", bqerr.Invalid(fmt.Sprintf("measure %s needs the time spine (an offset or cumulative metric), and the manifest names none", me.Name),
				"Add a daily time spine to the dbt project (time_spines in project_configuration).")
		}
		ts := s.base.alias + "_ts"
		day := ts + "." + c.m.spine.Column
		first = tableSQL(c.m.spine.Table) + " AS " + ts + "\n  INNER JOIN "
		if g := c.timeGroup.name.grain; !off.cumulative && g != "day" && (off.toGrain != "" || coarser(off.window.Grain, g)) {
			// Above a day, offset_to_grain, and a window at least as
			// coarse as the query's grain, shift whole periods, as
			// MetricFlow does: the spine's periods meet the rows' periods
			// a window earlier, or the period its grain starts in.
			first = "(SELECT DISTINCT " + truncSQL(c.m.spine.Column, g) + " AS " + c.m.spine.Column + " FROM " + tableSQL(c.m.spine.Table) + ") AS " + ts + "\n  INNER JOIN "
			t, err := aggTime()
			if err != nil {
				return "", err
			}
			if off.toGrain != "" {
				on = truncSQL(day, off.toGrain) + " = " + truncSQL(t, g)
			} else {
				on = fmt.Sprintf("DATE_SUB(CAST(%s AS DATETIME), INTERVAL %d %s) = %s", day, off.window.Count, off.window.Grain, truncSQL(t, g))
			}
			off = &offset{window: off.window, periodShift: true}
		}
		metricTime = func(grain string) (string, error) {
			if grain == "day" {
				return day, nil
			}
			return truncSQL(day, grain), nil
		}
		t, err := aggTime()
		if err != nil {
			return "", err
		}
		rowDay := truncSQL(t, "day")
		switch {
		case off.periodShift:
			metricTime = func(string) (string, error) { return day, nil }
		case off.cumulative:
			conds := []string{"(" + rowDay + " <= " + day + ")"}
			if off.window != nil {
				conds = append(conds, fmt.Sprintf("(%s > DATE_SUB(CAST(%s AS DATETIME), INTERVAL %d %s))", rowDay, day, off.window.Count, off.window.Grain))
			}
			if off.grainToDate != "" {
				conds = append(conds, "("+rowDay+" >= "+truncSQL(day, off.grainToDate)+")")
			}
			on = strings.Join(conds, " AND ")
		case off.window != nil:
			on = fmt.Sprintf("DATE_SUB(CAST(%s AS DATETIME), INTERVAL %d %s) = %s", day, off.window.Count, off.window.Grain, rowDay)
		default:
			on = truncSQL(day, off.toGrain) + " = " + rowDay
		}
	}
	resolve := func(n name) (string, error) {
		if n.isMetricTime() {
			return metricTime(or(n.grain, "day"))
		}
		return s.resolve(n)
	}
	var sel []string
	for _, g := range c.groups {
		expr, err := resolve(g.name)
		if err != nil {
			return "", err
		}
		sel = append(sel, expr+" AS "+g.col)
	}
	cumulativeGrain := ""
	if off != nil && off.cumulative && c.timeGroup.name.grain != "day" {
		// Daily values first; the period's value is chosen after.
		cumulativeGrain = c.timeGroup.name.grain
		day, _ := metricTime("day")
		sel = append(sel, day+" AS metric_time__day")
	}
	for _, f := range append(append([]*filter(nil), c.where...), filters...) {
		expr, err := f.render(resolve)
		if err != nil {
			return "", err
		}
		where = append(where, expr)
	}
	sel = append(sel, s.base.col("m_"+me.Name, measureExpr(me))+" AS __m")
	nad := ""
	if na := me.NonAdditive; na != nil {
		var err error
		if sel, err = c.nonAdditive(s, me, sel, metricTime); err != nil {
			return "", err
		}
	}
	agg, err := aggregate(me, "__m")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("SELECT " + strings.Join(sel, ", ") + "\nFROM " + s.from(first, on))
	if len(where) > 0 {
		b.WriteString("\nWHERE " + strings.Join(where, " AND "))
	}
	inner := b.String()
	if me.NonAdditive != nil {
		nad = c.nonAdditiveJoin(inner, me)
	}
	groupCols := c.groupCols()
	if cumulativeGrain != "" {
		groupCols += ", metric_time__day"
	}
	from := "(" + inner + ") AS " + c.alias()
	if nad != "" {
		from = nad
	}
	out := "SELECT " + prefix(groupCols) + agg + " AS " + alias + "\nFROM " + from
	if groupCols != "" {
		out += "\nGROUP BY " + groupCols
	}
	if cumulativeGrain != "" {
		return c.periodValue(out, alias, off.periodAgg), nil
	}
	return out, nil
}

func prefix(cols string) string {
	if cols == "" {
		return ""
	}
	return cols + ", "
}

// nonAdditive adds to a semi-additive measure's rows what nonAdditiveJoin
// needs: the non_additive_dimension (__nad_t) and what it is picked
// within (__nad_p0…), its window_groupings and the queried metric_time.
func (c *compiler) nonAdditive(s *source, me *Measure, sel []string, metricTime func(string) (string, error)) ([]string, error) {
	na := me.NonAdditive
	d := me.Model.dimension(na.Name)
	if d == nil || d.Type != "time" {
		return nil, bqerr.Invalid(fmt.Sprintf("measure %s: non_additive_dimension %q is not a time dimension of its model", me.Name, na.Name), "Fix the manifest.")
	}
	var part []string
	for _, g := range na.WindowGroupings {
		e := me.Model.entity(g)
		if e == nil {
			return nil, bqerr.Invalid(fmt.Sprintf("measure %s: window_groupings names %q, not an entity of its model", me.Name, g), "Fix the manifest.")
		}
		part = append(part, s.base.entityCol(e))
	}
	for _, g := range c.groups {
		if g.name.isMetricTime() {
			mt, err := metricTime(g.name.grain)
			if err != nil {
				return nil, err
			}
			part = append(part, mt)
		}
	}
	sel = append(sel, truncSQL(s.base.dimCol(d), d.Grain)+" AS __nad_t")
	for i, p := range part {
		sel = append(sel, fmt.Sprintf("%s AS __nad_p%d", p, i))
	}
	c.nadParts = len(part)
	return sel, nil
}

// nonAdditiveJoin keeps, of a semi-additive measure's rows, those at the
// last (window_choice max) or first (min) value of its
// non_additive_dimension within each of its window_groupings and the
// queried metric_time, as MetricFlow does: by joining the rows to each
// group's pick (so rows whose grouping is NULL drop out, as there).
func (c *compiler) nonAdditiveJoin(rows string, me *Measure) string {
	fn := "MAX"
	if strings.EqualFold(me.NonAdditive.WindowChoice, "min") {
		fn = "MIN"
	}
	r, k := c.alias(), c.alias()
	var cols, on []string
	for i := range c.nadParts {
		col := fmt.Sprintf("__nad_p%d", i)
		cols = append(cols, col)
		on = append(on, r+"."+col+" = "+k+"."+col)
	}
	pick := "SELECT " + prefix(strings.Join(cols, ", ")) + fn + "(__nad_t) AS __nad_pick\nFROM (" + rows + ") AS " + c.alias()
	if len(cols) > 0 {
		pick += "\nGROUP BY " + strings.Join(cols, ", ")
	}
	return "(" + rows + ") AS " + r + "\nINNER JOIN (" + pick + ") AS " + k + " ON " + strings.Join(append([]string{r + ".__nad_t = " + k + ".__nad_pick"}, on...), " AND ")
}

// periodValue turns daily cumulative values into one per period, as
// MetricFlow's period_agg says: the first day's (default), the last's, or
// their average. MetricFlow picks them with window functions; the same
// rows come from a GROUP BY, which BigQuery runs as fast and the emulator
// (which runs a window as a correlated subquery per row) far faster: the
// daily rows joined to each group's first (or last) day, group values
// matched NULL to NULL as a window's partition matches them.
func (c *compiler) periodValue(daily, alias, periodAgg string) string {
	cols := c.groupCols()
	if strings.EqualFold(periodAgg, "average") {
		return "SELECT " + cols + ", AVG(" + alias + ") AS " + alias + "\nFROM (" + daily + ") AS " + c.alias() + "\nGROUP BY " + cols
	}
	fn := "MIN"
	if strings.EqualFold(periodAgg, "last") {
		fn = "MAX"
	}
	d, f := c.alias(), c.alias()
	pick := "SELECT " + cols + ", " + fn + "(metric_time__day) AS __pick\nFROM (" + daily + ") AS " + c.alias() + "\nGROUP BY " + cols
	sel := make([]string, 0, len(c.groups)+1)
	on := []string{d + ".metric_time__day = " + f + ".__pick"}
	for _, g := range c.groups {
		sel = append(sel, d+"."+g.col+" AS "+g.col)
		l, r := d+"."+g.col, f+"."+g.col
		on = append(on, "("+l+" = "+r+" OR ("+l+" IS NULL AND "+r+" IS NULL))")
	}
	sel = append(sel, d+"."+alias+" AS "+alias)
	return "SELECT " + strings.Join(sel, ", ") + "\nFROM (" + daily + ") AS " + d + "\nINNER JOIN (" + pick + ") AS " + f + " ON " + strings.Join(on, " AND ")
}

// cumulative compiles a cumulative metric: over the time spine when
// grouped by metric_time, else (as MetricFlow does) its measure's plain
// aggregate.
func (c *compiler) cumulative(met *Metric, filters []*filter, alias string, off *offset) (string, error) {
	if off != nil {
		return "", bqerr.Invalid(fmt.Sprintf("metric %s offsets the cumulative metric %s", alias, met.Name), "Offsets of cumulative metrics are not supported (docs/semantic.md).")
	}
	me, mf, err := c.measureOf(met)
	if err != nil {
		return "", err
	}
	filters = append(filters, mf...)
	if c.timeGroup == nil {
		return c.leaf(me, filters, alias, nil)
	}
	p := &met.raw.TypeParams
	cum := &offset{cumulative: true, window: p.Window, grainToDate: strings.ToLower(p.GrainToDate), periodAgg: "first"}
	if cp := p.Cumulative; cp != nil {
		if cp.Window != nil {
			cum.window = cp.Window
		}
		if cp.GrainToDate != "" {
			cum.grainToDate = strings.ToLower(cp.GrainToDate)
		}
		if cp.PeriodAgg != "" {
			cum.periodAgg = cp.PeriodAgg
		}
	}
	return c.leaf(me, filters, alias, cum)
}
