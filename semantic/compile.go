package semantic

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// QueryInput is a metric query: query_metrics' arguments, and what a saved
// query holds.
type QueryInput struct {
	Metrics []string `json:"metrics,omitempty" `
	GroupBy []string `json:"group_by,omitempty" jsonschema:"e.g. metric_time__month, customer__region"`
	Where   Filters  `json:"where,omitempty" jsonschema:"e.g. {{ Dimension('customer__region') }} = 'EU'"`
	OrderBy []string `json:"order_by,omitempty" jsonschema:"-name: descending"`
	Limit   int      `json:"limit,omitempty" `
	// SavedQuery runs a saved query of the manifest; the other fields
	// then must be empty, but for limit.
	SavedQuery string `json:"saved_query,omitempty"`
}

// Filters is one where filter or a list of them: query_metrics takes
// either, as MetricFlow's CLI and API do.
type Filters []string

// UnmarshalJSON reads a string or an array of strings.
func (f *Filters) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*f = Filters{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("where: a filter or a list of filters: %w", err)
	}
	*f = many
	return nil
}

// Compiled is a metric query compiled to one BigQuery SELECT.
type Compiled struct {
	SQL string
	// Columns are the result's columns: the group-by columns, named as
	// MetricFlow names them, then the metrics.
	Columns []string
	Metrics []Provenance
}

// Provenance says where a metric comes from.
type Provenance struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Label       string   `json:"label,omitempty"`
	Certified   bool     `json:"certified,omitempty"`
	Description string   `json:"description,omitempty"`
	Expr        string   `json:"expr,omitempty" jsonschema:"A derived or ratio metric's formula over its inputs."`
	Inputs      []string `json:"inputs,omitempty"`
	Measures    []string `json:"measures,omitempty" jsonschema:"model.measure: agg(expr)."`
	Tables      []string `json:"tables,omitempty"`
	Filters     []string `json:"filters,omitempty"`
}

// group is one group-by column.
type group struct {
	name name
	col  string
	// order is its place in MetricFlow's column order (parseGroups).
	order [3]int
}

// compiler holds one query's state while it is compiled.
type compiler struct {
	m      *Manifest
	groups []group
	// timeGroup is the metric_time group at the finest grain, if any;
	// metricTimes counts the metric_time groups.
	timeGroup   *group
	metricTimes int
	// nadParts counts the columns a non-additive measure's pick is made
	// within (leaf).
	nadParts int
	where    []*filter
	n        int
}

// offset is an input metric's offset_window or offset_to_grain, or a
// cumulative metric's window: how a leaf's rows meet the time spine.
type offset struct {
	window      *windowJSON
	toGrain     string
	cumulative  bool
	grainToDate string
	periodAgg   string
	// periodShift is set when a window shifts whole periods of the
	// query's grain (leaf).
	periodShift bool
}

// Compile compiles a metric query.
func (m *Manifest) Compile(in QueryInput) (*Compiled, error) {
	in, err := m.expandSaved(in)
	if err != nil {
		return nil, err
	}
	if len(in.Metrics) == 0 {
		return nil, bqerr.Invalid("metrics is empty", "Name at least one metric (list_metrics).")
	}
	if in.Limit < 0 {
		return nil, bqerr.Invalid("limit must not be negative", "Leave limit out for every row.")
	}
	c := &compiler{m: m}
	var metrics []*Metric
	for _, name := range in.Metrics {
		met := m.metrics[name]
		if met == nil {
			return nil, bqerr.Invalid(fmt.Sprintf("no metric %q", name), "Use list_metrics to find metrics"+closest(name, m.metricNames())+".")
		}
		if slices.Contains(metrics, met) {
			return nil, bqerr.Invalid(fmt.Sprintf("metric %q is asked for twice", name), "Name each metric once.")
		}
		metrics = append(metrics, met)
	}
	var home *Model
	if ms := m.measuresOf(metrics[0], 0); len(ms) > 0 {
		home = ms[0].Model
	}
	if err := c.parseGroups(in.GroupBy, home); err != nil {
		return nil, err
	}
	if c.where, err = parseFilters(in.Where); err != nil {
		return nil, err
	}
	var parts []part
	out := &Compiled{}
	for _, g := range c.groups {
		out.Columns = append(out.Columns, g.col)
	}
	for _, met := range metrics {
		sql, err := c.metric(met, nil, met.Name, nil, 0)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part{sql: sql, cols: []string{met.Name}})
		out.Columns = append(out.Columns, met.Name)
		out.Metrics = append(out.Metrics, m.provenance(met))
	}
	body := c.combine(parts)
	order, err := c.orderBy(in.OrderBy, out.Columns)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("SELECT " + strings.Join(out.Columns, ", ") + "\nFROM (\n" + body + "\n) AS q")
	if order != "" {
		b.WriteString("\nORDER BY " + order)
	}
	if in.Limit > 0 {
		fmt.Fprintf(&b, "\nLIMIT %d", in.Limit)
	}
	out.SQL = b.String()
	return out, nil
}

// expandSaved replaces a saved query's name by its query.
func (m *Manifest) expandSaved(in QueryInput) (QueryInput, error) {
	if in.SavedQuery == "" {
		return in, nil
	}
	sq := m.saved[in.SavedQuery]
	if sq == nil {
		names := make([]string, 0, len(m.savedOrder))
		for _, s := range m.savedOrder {
			names = append(names, s.Name)
		}
		return in, bqerr.Invalid(fmt.Sprintf("no saved query %q", in.SavedQuery), "list_metrics lists the saved queries"+closest(in.SavedQuery, names)+".")
	}
	if len(in.Metrics)+len(in.GroupBy)+len(in.Where)+len(in.OrderBy) > 0 {
		return in, bqerr.Invalid("saved_query runs the saved query as it is", "Pass only saved_query (and limit), or the query's metrics, group_by and where yourself.")
	}
	q := sq.Query
	if in.Limit > 0 {
		q.Limit = in.Limit
	}
	return q, nil
}

func parseFilters(src []string) ([]*filter, error) {
	var out []*filter
	for _, s := range src {
		f, err := parseFilter(s)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// parseGroups reads group_by into columns named as MetricFlow names them,
// in its order as seen from home, the first metric's model.
func (c *compiler) parseGroups(names []string, home *Model) error {
	for _, s := range names {
		n, ok := parseName(groupByName(s), "")
		if !ok {
			return bqerr.Invalid(fmt.Sprintf("group_by %q is not an element name", s), "Use names like metric_time__month, customer__region or order_id__customer__region.")
		}
		if n.isMetricTime() && n.grain == "" {
			n.grain = "day"
		}
		if !n.isMetricTime() && n.grain == "" {
			// A time dimension named without a grain is at its own.
			if d := c.m.timeDimension(n.elem); d != nil {
				n.grain = d.Grain
			}
		}
		g := group{name: n, col: n.column()}
		if slices.ContainsFunc(c.groups, func(o group) bool { return o.col == g.col }) {
			return bqerr.Invalid(fmt.Sprintf("group_by %q is named twice", s), "Name each column once.")
		}
		c.groups = append(c.groups, g)
	}
	// MetricFlow's column order follows its rows: the model's own
	// elements, then those joined one hop away, then two; within each,
	// time (by grain), dimensions, entities, in the order asked.
	entities, dims := c.m.entityNames(), c.m.dimensionNames()
	for i := range c.groups {
		n := c.groups[i].name
		c.groups[i].order = [3]int{hops(home, n), groupClass(n, entities, dims), slices.Index(grains, n.grain)}
	}
	slices.SortStableFunc(c.groups, func(a, b group) int {
		for i := range a.order {
			if a.order[i] != b.order[i] {
				return a.order[i] - b.order[i]
			}
		}
		return 0
	})
	// The finest metric_time grain is the one offsets and cumulative
	// windows work at.
	for i := range c.groups {
		if n := c.groups[i].name; n.isMetricTime() {
			c.metricTimes++
			if c.timeGroup == nil || !coarser(n.grain, c.timeGroup.name.grain) {
				c.timeGroup = &c.groups[i]
			}
		}
	}
	return nil
}

// hops is how many joins away from model an element is.
func hops(model *Model, n name) int {
	if model == nil || len(n.links) == 0 {
		return 0
	}
	if len(n.links) == 1 {
		if e := model.entity(n.links[0]); e != nil && (e.joinable() || model.PrimaryEntity == n.links[0]) &&
			(model.dimension(n.elem) != nil || model.entity(n.elem) != nil) {
			return 0
		}
	}
	return len(n.links)
}

// groupClass orders group-by columns as MetricFlow does: 0 for time, 1
// for dimensions, 2 for entities.
func groupClass(n name, entities, dims map[string]bool) int {
	switch {
	case n.isMetricTime() || n.grain != "":
		return 0
	case entities[n.elem] && !dims[n.elem]:
		return 2
	}
	return 1
}

func (m *Manifest) entityNames() map[string]bool {
	out := map[string]bool{}
	for _, sm := range m.models {
		for _, e := range sm.Entities {
			out[e.Name] = true
		}
	}
	return out
}

func (m *Manifest) dimensionNames() map[string]bool {
	out := map[string]bool{}
	for _, sm := range m.models {
		for _, d := range sm.Dimensions {
			out[d.Name] = true
		}
	}
	return out
}

// groupByName reads a saved query's group-by, MetricFlow's object syntax
// (TimeDimension('metric_time', 'month'), Dimension('customer__region'),
// Entity('customer')), into a plain name; plain names pass unchanged.
func groupByName(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, ")") || strings.HasPrefix(s, "{{") {
		return s
	}
	f, err := parseFilter("{{ " + s + " }}")
	if err != nil || len(f.pieces) != 1 || f.pieces[0].ref == nil {
		return s
	}
	return f.pieces[0].ref.column()
}

func (m *Manifest) timeDimension(name string) *Dimension {
	for _, sm := range m.models {
		if d := sm.dimension(name); d != nil && d.Type == "time" {
			return d
		}
	}
	return nil
}

// part is a subquery with the group columns and cols.
type part struct {
	sql  string
	cols []string
}

func (c *compiler) alias() string {
	c.n++
	return fmt.Sprintf("q%d", c.n)
}

// combine joins parts on the group columns, as MetricFlow does: a full
// outer join, the group columns coalesced, one row per group.
func (c *compiler) combine(parts []part) string {
	if len(parts) == 1 {
		return parts[0].sql
	}
	aliases := make([]string, len(parts))
	for i := range parts {
		aliases[i] = c.alias()
	}
	var sel []string
	for _, g := range c.groups {
		var args []string
		for _, a := range aliases {
			args = append(args, a+"."+g.col)
		}
		sel = append(sel, "COALESCE("+strings.Join(args, ", ")+") AS "+g.col)
	}
	for i, p := range parts {
		for _, col := range p.cols {
			if len(c.groups) == 0 {
				sel = append(sel, aliases[i]+"."+col+" AS "+col)
			} else {
				sel = append(sel, "MAX("+aliases[i]+"."+col+") AS "+col)
			}
		}
	}
	var b strings.Builder
	b.WriteString("SELECT " + strings.Join(sel, ", ") + "\nFROM (" + parts[0].sql + ") AS " + aliases[0])
	for i := 1; i < len(parts); i++ {
		if len(c.groups) == 0 {
			b.WriteString("\nCROSS JOIN (" + parts[i].sql + ") AS " + aliases[i])
			continue
		}
		var on []string
		for _, g := range c.groups {
			left := aliases[0] + "." + g.col
			if i > 1 {
				var args []string
				for _, a := range aliases[:i] {
					args = append(args, a+"."+g.col)
				}
				left = "COALESCE(" + strings.Join(args, ", ") + ")"
			}
			on = append(on, left+" = "+aliases[i]+"."+g.col)
		}
		b.WriteString("\nFULL OUTER JOIN (" + parts[i].sql + ") AS " + aliases[i] + " ON " + strings.Join(on, " AND "))
	}
	if len(c.groups) > 0 {
		b.WriteString("\nGROUP BY " + c.groupCols())
	}
	return b.String()
}

func (c *compiler) groupCols() string {
	cols := make([]string, len(c.groups))
	for i, g := range c.groups {
		cols[i] = g.col
	}
	return strings.Join(cols, ", ")
}

// orderBy reads order_by: result columns, -name for descending.
func (c *compiler) orderBy(names []string, cols []string) (string, error) {
	var out []string
	for _, s := range names {
		s = strings.TrimSpace(s)
		desc := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		col := groupByName(s)
		if n, ok := parseName(col, ""); ok && n.isMetricTime() && n.grain == "" {
			col = "metric_time__day"
		}
		if !slices.Contains(cols, col) {
			return "", bqerr.Invalid(fmt.Sprintf("order_by %q is not a column of the result", s), "Order by a metric or a group_by column"+closest(col, cols)+"; -name for descending.")
		}
		if desc {
			col += " DESC"
		}
		out = append(out, col)
	}
	return strings.Join(out, ", "), nil
}
