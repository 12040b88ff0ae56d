package semantic

import (
	"fmt"
	"strings"
)

// link resolves what a metric names, so a manifest whose metrics point at
// nothing stops the server at start instead of failing a query later.
// Metric types the compiler does not support (conversion) load, and are
// refused when queried.
func (m *Manifest) link(met *Metric) error {
	p := &met.raw.TypeParams
	switch met.Type = strings.ToLower(met.Type); met.Type {
	case "simple", "cumulative":
		switch {
		case p.Measure != nil:
			me := m.findMeasure(p.Measure.Name)
			if me == nil {
				return fmt.Errorf("type_params.measure: no measure %q%s", p.Measure.Name, closest(p.Measure.Name, m.measureNames()))
			}
			met.measure = me
		case p.Aggregation != nil:
			sm := m.models[p.Aggregation.SemanticModel]
			if sm == nil {
				return fmt.Errorf("type_params.metric_aggregation_params: no semantic model %q", p.Aggregation.SemanticModel)
			}
			me := &Measure{Name: met.Name, Agg: strings.ToLower(p.Aggregation.Agg), Expr: or(p.Expr, met.Name), Model: sm,
				AggTime: or(p.Aggregation.AggTimeDimension, sm.AggTime), NonAdditive: p.Aggregation.NonAdditive}
			if err := me.setParams(p.Aggregation.AggParams); err != nil {
				return fmt.Errorf("type_params.metric_aggregation_params: %w", err)
			}
			met.measure = me
		case met.Type == "cumulative" && p.Cumulative != nil && p.Cumulative.Metric != nil:
			// Newer manifests name the cumulated metric, not its measure:
			// it is linked once every metric is known (cumulatedMeasure).
		default:
			return fmt.Errorf("type_params: a %s metric needs a measure", met.Type)
		}
	case "ratio":
		if p.Numerator == nil || p.Denominator == nil {
			return fmt.Errorf("type_params: a ratio metric needs a numerator and a denominator")
		}
		for _, in := range []*inputMetricJSON{p.Numerator, p.Denominator} {
			if m.metrics[in.Name] == nil {
				return fmt.Errorf("type_params: no metric %q%s", in.Name, closest(in.Name, m.metricNames()))
			}
		}
	case "derived":
		if len(p.Metrics) == 0 || strings.TrimSpace(p.Expr) == "" {
			return fmt.Errorf("type_params: a derived metric needs metrics and an expr")
		}
		for _, in := range p.Metrics {
			if m.metrics[in.Name] == nil {
				return fmt.Errorf("type_params.metrics: no metric %q%s", in.Name, closest(in.Name, m.metricNames()))
			}
		}
	}
	return nil
}

// findMeasure finds a measure by its name, unique across the manifest.
func (m *Manifest) findMeasure(name string) *Measure {
	for _, sm := range m.models {
		if me := sm.measureNamed(name); me != nil {
			return me
		}
	}
	return nil
}

func (m *Manifest) measureNames() []string {
	var out []string
	for _, sm := range m.models {
		for _, me := range sm.Measures {
			out = append(out, me.Name)
		}
	}
	return out
}

func (m *Manifest) metricNames() []string {
	out := make([]string, 0, len(m.order))
	for _, met := range m.order {
		out = append(out, met.Name)
	}
	return out
}
