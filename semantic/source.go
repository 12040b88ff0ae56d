package semantic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// source is the FROM of one measure's rows: its model and the models
// joined to it along entity keys. Each model is read through a subquery
// that selects only the columns the query needs under names of its own
// (e_ entities, d_ dimensions, m_ the measure), so the manifest's
// expressions never meet another table's columns.
type source struct {
	me    *Measure
	base  *instance
	joins []*instance
}

// instance is one model in a source; the base, or a model joined to its
// parent along entity.
type instance struct {
	alias  string
	model  *Model
	path   string
	parent *instance
	entity string
	cols   []string
	exprs  map[string]string
}

func newSource(me *Measure, alias string) *source {
	return &source{me: me, base: &instance{alias: alias, model: me.Model, exprs: map[string]string{}}}
}

// col makes the instance select expr as col, once, and names it.
func (in *instance) col(col, expr string) string {
	if _, ok := in.exprs[col]; !ok {
		in.exprs[col] = expr
		in.cols = append(in.cols, col)
	}
	return in.alias + "." + col
}

func (in *instance) entityCol(e *Entity) string { return in.col("e_"+e.Name, e.Expr) }
func (in *instance) dimCol(d *Dimension) string { return in.col("d_"+d.Name, d.Expr) }

// aggTime is the measure's time column (its agg_time_dimension), raw.
func (s *source) aggTime() (string, error) {
	d := s.me.Model.dimension(s.me.AggTime)
	if d == nil {
		return "", bqerr.Invalid(fmt.Sprintf("measure %s has no agg_time_dimension, so it cannot be grouped or filtered by metric_time", s.me.Name),
			"Group by one of its model's dimensions instead.")
	}
	return s.base.dimCol(d), nil
}

// resolve returns the SQL expression of an element (not metric_time) as
// seen from the measure's rows, joining models as the entity links say:
// foreign (or any) key to a primary, unique or natural key only, so no
// join fans out, with at most two hops as MetricFlow allows.
func (s *source) resolve(n name) (string, error) {
	if len(n.links) > 2 {
		return "", s.unknown(n, "more than two entity links; MetricFlow joins at most two hops")
	}
	cur := s.base
	for k, link := range n.links {
		last := k == len(n.links)-1
		if last {
			if e := cur.model.entity(link); e != nil && (e.joinable() || cur.model.PrimaryEntity == link) {
				if expr, ok := s.local(cur, n); ok {
					return expr, nil
				}
			}
		}
		next, err := s.join(cur, link, n, k)
		if err != nil {
			return "", err
		}
		cur = next
	}
	if len(n.links) == 0 {
		if e := cur.model.entity(n.elem); e != nil {
			return cur.entityCol(e), nil
		}
		return "", s.unknown(n, "an element is named with its entity: entity__dimension (e.g. customer__region)")
	}
	if expr, ok := s.local(cur, n); ok {
		return expr, nil
	}
	return "", s.unknown(n, "")
}

// local is the element read from the instance's own model.
func (s *source) local(in *instance, n name) (string, bool) {
	if d := in.model.dimension(n.elem); d != nil {
		if d.Type == "time" {
			return truncSQL(in.dimCol(d), or(n.grain, d.Grain)), true
		}
		return in.dimCol(d), n.grain == ""
	}
	if e := in.model.entity(n.elem); e != nil && n.grain == "" {
		return in.entityCol(e), true
	}
	return "", false
}

// join finds or adds the model that link joins cur to: one where link is
// a primary, unique or natural key and that has what the rest of the
// path names.
func (s *source) join(cur *instance, link string, n name, k int) (*instance, error) {
	path := strings.Join(n.links[:k+1], "__")
	for _, j := range s.joins {
		if j.path == path {
			return j, nil
		}
	}
	from := cur.model.entity(link)
	if from == nil {
		return nil, s.unknown(n, fmt.Sprintf("model %s has no entity %s", cur.model.Name, link))
	}
	var found *Model
	for _, name := range s.modelNames() {
		t := s.models()[name]
		if t == cur.model {
			continue
		}
		e := t.entity(link)
		if e == nil || !e.joinable() {
			continue
		}
		if k == len(n.links)-1 {
			if t.dimension(n.elem) == nil && t.entity(n.elem) == nil {
				continue
			}
		} else if t.entity(n.links[k+1]) == nil {
			continue
		}
		found = t
		break
	}
	if found == nil {
		return nil, s.unknown(n, fmt.Sprintf("no model has %s as its primary, unique or natural key with what the name asks for", link))
	}
	in := &instance{alias: fmt.Sprintf("%s_j%d", s.base.alias, len(s.joins)+1), model: found, path: path, parent: cur, entity: link, exprs: map[string]string{}}
	cur.entityCol(from)
	in.entityCol(found.entity(link))
	s.joins = append(s.joins, in)
	return in, nil
}

// manifest reaches the other models through the measure's model; the
// source holds no manifest, so the models are found by a package
// function set when the query is compiled.
func (s *source) models() map[string]*Model { return s.me.Model.manifest.models }

func (s *source) modelNames() []string {
	names := make([]string, 0, len(s.models()))
	for n := range s.models() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (s *source) unknown(n name, why string) error {
	msg := fmt.Sprintf("%s cannot be reached from measure %s (model %s)", n.column(), s.me.Name, s.me.Model.Name)
	if why != "" {
		msg += ": " + why
	}
	return bqerr.Invalid(msg, "Use describe_metrics to see the dimensions these metrics share"+closest(n.column(), s.me.Model.manifest.reachable(s.me.Model))+".")
}

// from is the FROM clause: the base instance and its joins, after first
// (the time spine, when the rows are joined to it: first is "spine AS ts
// INNER JOIN" and on the condition).
func (s *source) from(first, on string) string {
	var b strings.Builder
	b.WriteString(first)
	b.WriteString(s.base.sql())
	if on != "" {
		b.WriteString(" ON " + on)
	}
	for _, j := range s.joins {
		fmt.Fprintf(&b, "\n  LEFT OUTER JOIN %s ON %s.e_%s = %s.e_%s", j.sql(), j.parent.alias, j.entity, j.alias, j.entity)
	}
	return b.String()
}

func (in *instance) sql() string {
	var b strings.Builder
	b.WriteString("(SELECT ")
	if len(in.cols) == 0 {
		b.WriteString("1 AS one")
	}
	for i, c := range in.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(in.exprs[c] + " AS " + c)
	}
	fmt.Fprintf(&b, " FROM %s) AS %s", tableSQL(in.model.Table), in.alias)
	return b.String()
}
