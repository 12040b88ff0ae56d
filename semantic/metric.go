package semantic

import (
	"fmt"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// maxDepth bounds how deep derived metrics may nest: a manifest whose
// metrics name each other in a loop is refused, not followed forever.
const maxDepth = 20

// metric compiles one metric to a subquery with the group columns and
// alias. filters are the callers' own (an input's filter, the filter of
// the metric that uses it); off is an offset its caller asked for.
func (c *compiler) metric(met *Metric, filters []*filter, alias string, off *offset, depth int) (string, error) {
	if depth > maxDepth {
		return "", bqerr.Invalid(fmt.Sprintf("metric %s nests more than %d metrics deep (a loop?)", met.Name, maxDepth), "Fix the manifest's derived metrics.")
	}
	own, err := parseFilters(met.Filters)
	if err != nil {
		return "", fmt.Errorf("metric %s: %w", met.Name, err)
	}
	filters = append(append([]*filter(nil), filters...), own...)
	p := &met.raw.TypeParams
	switch met.Type {
	case "simple":
		me, mf, err := c.measureOf(met)
		if err != nil {
			return "", err
		}
		return c.leaf(me, append(filters, mf...), alias, off)
	case "cumulative":
		return c.cumulative(met, filters, alias, off)
	case "ratio":
		num, err := c.input(p.Numerator, "__num", filters, off, depth)
		if err != nil {
			return "", err
		}
		den, err := c.input(p.Denominator, "__den", filters, off, depth)
		if err != nil {
			return "", err
		}
		body := c.combine([]part{{num, []string{"__num"}}, {den, []string{"__den"}}})
		return c.over(body, "CAST(__num AS FLOAT64) / CAST(NULLIF(__den, 0) AS FLOAT64) AS "+alias), nil
	case "derived":
		var parts []part
		for i := range p.Metrics {
			in := &p.Metrics[i]
			sql, err := c.input(in, or(in.Alias, in.Name), filters, off, depth)
			if err != nil {
				return "", err
			}
			parts = append(parts, part{sql, []string{or(in.Alias, in.Name)}})
		}
		return c.over(c.combine(parts), p.Expr+" AS "+alias), nil
	case "conversion":
		return "", bqerr.Invalid(fmt.Sprintf("metric %s is a conversion metric, which this server does not compile", met.Name),
			"Query its base and conversion metrics separately; conversion metrics are not supported (docs/semantic.md).")
	}
	return "", bqerr.Invalid(fmt.Sprintf("metric %s has type %q, which this server does not compile", met.Name, met.Type), "See docs/semantic.md for the supported metric types.")
}

// input compiles a ratio's or derived metric's input under its alias (an
// input's column is __num, __den or its alias or name), with its filter
// and offset.
func (c *compiler) input(in *inputMetricJSON, alias string, filters []*filter, off *offset, depth int) (string, error) {
	met := c.m.metrics[in.Name]
	own, err := parseFilters(in.Filter.templates())
	if err != nil {
		return "", err
	}
	if in.OffsetWindow != nil || in.OffsetToGrain != "" {
		if off != nil {
			return "", bqerr.Invalid(fmt.Sprintf("metric %s offsets a metric that is already offset", in.Name), "Nested offsets are not supported (docs/semantic.md).")
		}
		off = &offset{window: in.OffsetWindow, toGrain: strings.ToLower(in.OffsetToGrain)}
		if c.timeGroup == nil {
			return "", bqerr.Invalid(fmt.Sprintf("metric input %s is offset in time, which needs metric_time", in.Name), "Add metric_time (e.g. metric_time__month) to group_by.")
		}
	}
	sql, err := c.metric(met, append(filters, own...), alias, off, depth+1)
	if err != nil {
		return "", err
	}
	return sql, nil
}

// over selects the group columns and one computed column over body.
func (c *compiler) over(body, computed string) string {
	sel := computed
	if len(c.groups) > 0 {
		sel = c.groupCols() + ", " + computed
	}
	return "SELECT " + sel + "\nFROM (" + body + ") AS " + c.alias()
}

// measureOf is a simple metric's measure and the input measure's filters.
func (c *compiler) measureOf(met *Metric) (*Measure, []*filter, error) {
	var mf []*filter
	if in := met.raw.TypeParams.Measure; in != nil {
		var err error
		if mf, err = parseFilters(in.Filter.templates()); err != nil {
			return nil, nil, err
		}
		if in.JoinToTimespine || in.FillNullsWith != nil {
			return nil, nil, bqerr.Invalid(fmt.Sprintf("metric %s joins to the time spine or fills nulls, which this server does not compile", met.Name), "See docs/semantic.md for the supported subset.")
		}
	}
	if met.raw.TypeParams.JoinToTimespine || met.raw.TypeParams.FillNullsWith != nil {
		return nil, nil, bqerr.Invalid(fmt.Sprintf("metric %s joins to the time spine or fills nulls, which this server does not compile", met.Name), "See docs/semantic.md for the supported subset.")
	}
	if met.measure != nil {
		return met.measure, mf, nil
	}
	// A cumulative metric over a metric: that metric's measure.
	if cp := met.raw.TypeParams.Cumulative; cp != nil && cp.Metric != nil {
		inner := c.m.metrics[cp.Metric.Name]
		if inner == nil || inner.Type != "simple" {
			return nil, nil, bqerr.Invalid(fmt.Sprintf("cumulative metric %s names %q, which is not a simple metric", met.Name, cp.Metric.Name), "Fix the manifest.")
		}
		me, imf, err := c.measureOf(inner)
		if err != nil {
			return nil, nil, err
		}
		own, err := parseFilters(append(inner.Filters, cp.Metric.Filter.templates()...))
		if err != nil {
			return nil, nil, err
		}
		return me, append(append(mf, imf...), own...), nil
	}
	return nil, nil, bqerr.Invalid(fmt.Sprintf("metric %s has no measure", met.Name), "Fix the manifest.")
}

// aggregate is the measure's aggregation of col, as MetricFlow renders it
// for BigQuery.
func aggregate(me *Measure, col string) (string, error) {
	switch me.Agg {
	case "sum", "sum_boolean":
		return "SUM(" + col + ")", nil
	case "count":
		return "COUNT(" + col + ")", nil
	case "count_distinct":
		return "COUNT(DISTINCT " + col + ")", nil
	case "average":
		return "AVG(" + col + ")", nil
	case "min":
		return "MIN(" + col + ")", nil
	case "max":
		return "MAX(" + col + ")", nil
	case "percentile":
		if me.Discrete || !me.Approximate {
			return "", bqerr.Invalid(fmt.Sprintf("measure %s is an exact or discrete percentile, which BigQuery cannot compute", me.Name),
				"As in MetricFlow, BigQuery takes only approximate continuous percentiles: use_approximate_percentile: true, use_discrete_percentile: false.")
		}
		num, den := fraction(me.Percentile)
		return fmt.Sprintf("APPROX_QUANTILES(%s, %d)[OFFSET(%d)]", col, den, num), nil
	}
	return "", bqerr.Invalid(fmt.Sprintf("measure %s aggregates with %q, which this server does not compile", me.Name, me.Agg), "See docs/semantic.md for the supported aggregations.")
}

// measureExpr is the measure's expression in its model's rows;
// sum_boolean counts the rows where it holds, as MetricFlow rewrites it.
func measureExpr(me *Measure) string {
	if me.Agg == "sum_boolean" {
		return "CASE WHEN " + me.Expr + " THEN 1 ELSE 0 END"
	}
	return me.Expr
}

// fraction is p as the smallest fraction within 1e-9, as Python's
// Fraction.limit_denominator finds it for the percentiles people write.
func fraction(p float64) (int, int) {
	for den := 1; den <= 1000000; den++ {
		num := int(p*float64(den) + 0.5)
		if d := float64(num)/float64(den) - p; d < 1e-9 && d > -1e-9 {
			return num, den
		}
	}
	return int(p*1000000 + 0.5), 1000000
}
