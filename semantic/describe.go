package semantic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// provenance says where a metric comes from: its formula, measures,
// tables and filters, through every metric it is made of.
func (m *Manifest) provenance(met *Metric) Provenance {
	p := Provenance{Name: met.Name, Type: met.Type, Label: met.Label, Certified: met.Certified, Description: met.Description}
	tp := &met.raw.TypeParams
	switch met.Type {
	case "ratio":
		p.Expr = tp.Numerator.Name + " / " + tp.Denominator.Name
		p.Inputs = []string{tp.Numerator.Name, tp.Denominator.Name}
	case "derived":
		p.Expr = tp.Expr
		for _, in := range tp.Metrics {
			p.Inputs = append(p.Inputs, in.Name)
		}
	}
	p.Filters = append(p.Filters, met.Filters...)
	for _, me := range m.measuresOf(met, 0) {
		p.Measures = appendNew(p.Measures, fmt.Sprintf("%s.%s: %s(%s)", me.Model.Name, me.Name, me.Agg, me.Expr))
		p.Tables = appendNew(p.Tables, me.Model.Table.String())
	}
	return p
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// measuresOf is every measure a metric is computed from.
func (m *Manifest) measuresOf(met *Metric, depth int) []*Measure {
	if depth > maxDepth {
		return nil
	}
	tp := &met.raw.TypeParams
	var inputs []string
	switch {
	case met.measure != nil:
		return []*Measure{met.measure}
	case met.Type == "ratio":
		inputs = []string{tp.Numerator.Name, tp.Denominator.Name}
	case met.Type == "derived":
		for _, in := range tp.Metrics {
			inputs = append(inputs, in.Name)
		}
	case tp.Cumulative != nil && tp.Cumulative.Metric != nil:
		inputs = []string{tp.Cumulative.Metric.Name}
	}
	var out []*Measure
	for _, name := range inputs {
		if in := m.metrics[name]; in != nil {
			for _, me := range m.measuresOf(in, depth+1) {
				if !slices.Contains(out, me) {
					out = append(out, me)
				}
			}
		}
	}
	return out
}

// reachable are the names a measure of model can be grouped and filtered
// by: metric_time, its entities, its dimensions through its primary key,
// and those of the models one or two joins away.
func (m *Manifest) reachable(model *Model) []string {
	out := []string{"metric_time"}
	for _, e := range model.Entities {
		out = appendNew(out, e.Name)
		if e.joinable() || model.PrimaryEntity == e.Name {
			for _, d := range model.Dimensions {
				out = appendNew(out, e.Name+"__"+d.Name)
			}
		}
	}
	if pe := model.PrimaryEntity; pe != "" && model.entity(pe) == nil {
		for _, d := range model.Dimensions {
			out = appendNew(out, pe+"__"+d.Name)
		}
	}
	for _, e := range model.Entities {
		for _, t := range m.joinTargets(model, e.Name) {
			for _, d := range t.Dimensions {
				out = appendNew(out, e.Name+"__"+d.Name)
			}
			for _, e2 := range t.Entities {
				if e2.Name == e.Name {
					continue
				}
				out = appendNew(out, e.Name+"__"+e2.Name)
				for _, t2 := range m.joinTargets(t, e2.Name) {
					for _, d := range t2.Dimensions {
						out = appendNew(out, e.Name+"__"+e2.Name+"__"+d.Name)
					}
				}
			}
		}
	}
	return out
}

// joinTargets are the models (not from) where entity is a primary, unique
// or natural key: the only joins that never fan out.
func (m *Manifest) joinTargets(from *Model, entity string) []*Model {
	var out []*Model
	for _, t := range m.sortedModels() {
		if e := t.entity(entity); t != from && e != nil && e.joinable() {
			out = append(out, t)
		}
	}
	return out
}

func (m *Manifest) sortedModels() []*Model {
	out := make([]*Model, 0, len(m.models))
	for _, sm := range m.models {
		out = append(out, sm)
	}
	slices.SortFunc(out, func(a, b *Model) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// dimensionsOf are the names every measure of the metric can be grouped
// by.
func (m *Manifest) dimensionsOf(met *Metric) []string {
	var out []string
	for i, me := range m.measuresOf(met, 0) {
		r := m.reachable(me.Model)
		if i == 0 {
			out = r
			continue
		}
		out = slices.DeleteFunc(out, func(s string) bool { return !slices.Contains(r, s) })
	}
	return out
}

// DescribeInput is describe_metrics' input.
type DescribeInput struct {
	Metrics []string `json:"metrics"`
}

// Description is describe_metrics' answer.
type Description struct {
	Metrics []Provenance `json:"metrics"`
	// GroupBy are the names all the metrics can be grouped and filtered
	// by; time dimensions (and metric_time) take a grain suffix.
	GroupBy    []string      `json:"groupBy"`
	TimeGrains []string      `json:"timeGrains"`
	Models     []ModelInfo   `json:"models"`
	Joins      []Join        `json:"joins,omitempty"`
	Manifest   ManifestStamp `json:"manifest"`
}

// ModelInfo is a semantic model and its table.
type ModelInfo struct {
	Name        string `json:"name"`
	Table       string `json:"table"`
	Description string `json:"description,omitempty"`
	// Time dimensions, which take a grain.
	TimeDimensions []string `json:"timeDimensions,omitempty"`
}

// Join is how a model reaches another: from.entity = to.entity.
type Join struct {
	From   string `json:"from"`
	Entity string `json:"entity"`
	To     string `json:"to"`
}

// ManifestStamp says which manifest answered.
type ManifestStamp struct {
	Hash        string `json:"sha256"`
	GeneratedAt string `json:"generatedAt,omitempty"`
}

// Stamp is the manifest's hash and generation time.
func (m *Manifest) Stamp() ManifestStamp {
	return ManifestStamp{Hash: m.Hash, GeneratedAt: m.GeneratedAt}
}

// Describe answers describe_metrics.
func (m *Manifest) Describe(in DescribeInput) (*Description, error) {
	if len(in.Metrics) == 0 {
		return nil, bqerr.Invalid("metrics is empty", "Name the metrics to describe (list_metrics).")
	}
	out := &Description{TimeGrains: slices.Clone(grains), Manifest: m.Stamp()}
	var models []*Model
	for i, name := range in.Metrics {
		met := m.metrics[name]
		if met == nil {
			return nil, bqerr.Invalid(fmt.Sprintf("no metric %q", name), "Use list_metrics to find metrics"+closest(name, m.metricNames())+".")
		}
		out.Metrics = append(out.Metrics, m.provenance(met))
		dims := m.dimensionsOf(met)
		if i == 0 {
			out.GroupBy = dims
		} else {
			out.GroupBy = slices.DeleteFunc(out.GroupBy, func(s string) bool { return !slices.Contains(dims, s) })
		}
		for _, me := range m.measuresOf(met, 0) {
			if !slices.Contains(models, me.Model) {
				models = append(models, me.Model)
			}
		}
	}
	seen := map[*Model]bool{}
	var visit func(sm *Model, depth int)
	visit = func(sm *Model, depth int) {
		if seen[sm] {
			return
		}
		seen[sm] = true
		info := ModelInfo{Name: sm.Name, Table: sm.Table.String(), Description: oneLine(sm.Description)}
		for _, d := range sm.Dimensions {
			if d.Type == "time" {
				info.TimeDimensions = append(info.TimeDimensions, d.Name)
			}
		}
		out.Models = append(out.Models, info)
		if depth == 2 {
			return
		}
		for _, e := range sm.Entities {
			for _, t := range m.joinTargets(sm, e.Name) {
				out.Joins = append(out.Joins, Join{From: sm.Name, Entity: e.Name, To: t.Name})
				visit(t, depth+1)
			}
		}
	}
	for _, sm := range models {
		visit(sm, 0)
	}
	return out, nil
}

// oneLine is a description's first line, cut to 160 bytes.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return bqerr.Truncate(s, 160)
}
