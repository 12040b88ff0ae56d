package semantic

import (
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// MaxValues is the most values get_dimension_values returns.
const MaxValues = 1000

// DimensionValuesSQL compiles get_dimension_values: the distinct values
// of a dimension, read from the rows of the metrics' first measure or,
// without metrics, from the model the dimension's first entity is the key
// of; at most MaxValues+1, so a cut list shows.
func (m *Manifest) DimensionValuesSQL(dimension string, metrics []string) (string, error) {
	n, ok := parseName(groupByName(dimension), "")
	if !ok || n.isMetricTime() {
		return "", bqerr.Invalid(fmt.Sprintf("dimension %q is not an entity__dimension name", dimension), "Name a dimension as describe_metrics lists it, e.g. customer__region.")
	}
	c := &compiler{m: m}
	var me *Measure
	if len(metrics) > 0 {
		met := m.metrics[metrics[0]]
		if met == nil {
			return "", bqerr.Invalid(fmt.Sprintf("no metric %q", metrics[0]), "Use list_metrics to find metrics"+closest(metrics[0], m.metricNames())+".")
		}
		if ms := m.measuresOf(met, 0); len(ms) > 0 {
			me = ms[0]
		}
	}
	if me == nil {
		if len(n.links) == 0 {
			return "", bqerr.Invalid(fmt.Sprintf("dimension %q names no entity", dimension), "Name it with its entity, e.g. customer__region.")
		}
		// The model whose key the first link is: a measure-less view of it.
		for _, sm := range m.sortedModels() {
			if e := sm.entity(n.links[0]); e != nil && (e.joinable() || sm.PrimaryEntity == n.links[0]) {
				me = &Measure{Name: "values", Model: sm}
				break
			}
		}
		if me == nil {
			return "", bqerr.Invalid(fmt.Sprintf("no model has %s as its key", n.links[0]), "Name a dimension as describe_metrics lists it"+closest(n.column(), m.allDimensions())+".")
		}
	}
	s := newSource(me, c.alias())
	expr, err := s.resolve(n)
	if err != nil {
		return "", err
	}
	col := n.column()
	return fmt.Sprintf("SELECT DISTINCT %s AS %s\nFROM %s\nORDER BY %s\nLIMIT %d", expr, col, s.from("", ""), col, MaxValues+1), nil
}

func (m *Manifest) allDimensions() []string {
	var out []string
	for _, sm := range m.sortedModels() {
		for _, d := range m.reachable(sm) {
			out = appendNew(out, d)
		}
	}
	return out
}
