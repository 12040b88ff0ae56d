package semantic

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// CertifiedKey is the key of a metric's config.meta that certifies it:
// `certified: true` (a boolean, or the string "true"). Certified metrics
// are listed first.
const CertifiedKey = "certified"

// Manifest is a loaded semantic manifest, indexed for the tools. It is
// read-only once Load returns: every call shares it.
type Manifest struct {
	// Path is the file it was read from; Hash the SHA-256 of its bytes,
	// hex; GeneratedAt dbt's metadata.generated_at, when present.
	Path, Hash, GeneratedAt string

	models  map[string]*Model
	metrics map[string]*Metric
	// order is the metrics certified first, then by name: list_metrics'
	// order.
	order []*Metric
	saved map[string]*SavedQuery
	// savedOrder is the saved queries by name.
	savedOrder []*SavedQuery
	// spine is the daily time spine, when the manifest names one:
	// cumulative and offset metrics need it.
	spine *TimeSpine
}

// Model is a semantic model: a table with entities, dimensions and
// measures.
type Model struct {
	Name, Description string
	// Table is the BigQuery table, `project.dataset.table` (project
	// empty: the server's).
	Table         bqtype.TableRef
	PrimaryEntity string
	// AggTime is the default aggregation time dimension of its measures.
	AggTime    string
	Entities   []*Entity
	Dimensions []*Dimension
	Measures   []*Measure
	manifest   *Manifest
}

// Entity is a join key.
type Entity struct {
	Name, Type, Expr string
}

// joinable reports whether the entity identifies at most one row of its
// model: a join to it never fans out.
func (e *Entity) joinable() bool {
	return e.Type == "primary" || e.Type == "unique" || e.Type == "natural"
}

// Dimension is a categorical or time attribute of a model's rows.
type Dimension struct {
	Name, Type, Expr, Description string
	// Grain is a time dimension's own granularity (day, …).
	Grain string
}

// Measure is an aggregation over a model's rows.
type Measure struct {
	Name, Agg, Expr string
	Model           *Model
	// Percentile, Approximate and Discrete are a percentile's parameters.
	Percentile            float64
	Approximate, Discrete bool
	// AggTime is the time dimension metric_time is read from.
	AggTime     string
	NonAdditive *nonAdditiveJSON
}

// TimeSpine is the table with one row per day that cumulative and offset
// metrics are computed over.
type TimeSpine struct {
	Table  bqtype.TableRef
	Column string
}

// Metric is one metric of the manifest.
type Metric struct {
	Name, Label, Description, Type string
	Certified                      bool
	// Filters are the metric's own where filters (templates).
	Filters []string
	raw     *metricJSON
	// measure is a simple or cumulative metric's measure.
	measure *Measure
}

// SavedQuery is a query the manifest names.
type SavedQuery struct {
	Name, Label, Description string
	Query                    QueryInput
}

// Load reads and indexes the manifest at path. A file that does not parse
// as a semantic manifest, or whose models name tables that cannot exist or
// measures, dimensions and metrics that are not there, is an error naming
// the file and the place.
func Load(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("semantic manifest: %w", err)
	}
	m, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("semantic manifest %s: %w", path, err)
	}
	m.Path = path
	return m, nil
}

// Parse indexes a manifest's bytes (Load without the file).
func Parse(b []byte) (*Manifest, error) {
	var raw manifestJSON
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, placeJSONError(b, err)
	}
	sum := sha256.Sum256(b)
	m := &Manifest{Hash: hex.EncodeToString(sum[:]), models: map[string]*Model{}, metrics: map[string]*Metric{}, saved: map[string]*SavedQuery{}}
	if raw.Metadata != nil {
		m.GeneratedAt = raw.Metadata.GeneratedAt
	}
	if len(raw.SemanticModels) == 0 {
		return nil, errors.New("semantic_models: none (is this dbt's target/semantic_manifest.json?)")
	}
	for i := range raw.SemanticModels {
		if err := m.addModel(&raw.SemanticModels[i]); err != nil {
			return nil, fmt.Errorf("semantic_models[%d] (%s): %w", i, raw.SemanticModels[i].Name, err)
		}
	}
	if err := m.addSpine(&raw); err != nil {
		return nil, fmt.Errorf("project_configuration: %w", err)
	}
	for i := range raw.Metrics {
		r := &raw.Metrics[i]
		if !isIdent(r.Name) || m.metrics[r.Name] != nil {
			return nil, fmt.Errorf("metrics[%d]: name %q is not an identifier, or repeated", i, r.Name)
		}
		for _, in := range r.TypeParams.Metrics {
			if in.Alias != "" && !isIdent(in.Alias) {
				return nil, fmt.Errorf("metrics[%d] (%s): alias %q is not an identifier", i, r.Name, in.Alias)
			}
		}
		met := &Metric{Name: r.Name, Label: r.Label, Description: r.Description, Type: r.Type, Filters: r.Filter.templates(), raw: r}
		if r.Config != nil {
			switch v := r.Config.Meta[CertifiedKey].(type) {
			case bool:
				met.Certified = v
			case string:
				met.Certified = strings.EqualFold(v, "true")
			}
		}
		m.metrics[r.Name] = met
		m.order = append(m.order, met)
	}
	for i, met := range m.order {
		if err := m.link(met); err != nil {
			return nil, fmt.Errorf("metrics[%d] (%s): %w", i, met.Name, err)
		}
	}
	slices.SortFunc(m.order, func(a, b *Metric) int {
		if a.Certified != b.Certified {
			if a.Certified {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	for i := range raw.SavedQueries {
		s := &raw.SavedQueries[i]
		q := QueryInput{Metrics: s.Params.Metrics, OrderBy: s.Params.OrderBy, Where: s.Params.Where.templates()}
		for _, g := range s.Params.GroupBy {
			q.GroupBy = append(q.GroupBy, groupByName(g))
		}
		if s.Params.Limit != nil {
			q.Limit = *s.Params.Limit
		}
		sq := &SavedQuery{Name: s.Name, Label: s.Label, Description: s.Description, Query: q}
		m.saved[s.Name] = sq
		m.savedOrder = append(m.savedOrder, sq)
	}
	slices.SortFunc(m.savedOrder, func(a, b *SavedQuery) int { return strings.Compare(a.Name, b.Name) })
	return m, nil
}

func (m *Manifest) addModel(r *modelJSON) error {
	if r.Name == "" || m.models[r.Name] != nil {
		return fmt.Errorf("name %q is empty or repeated", r.Name)
	}
	// Names become column aliases in the SQL: identifiers only.
	for _, e := range r.Entities {
		if !isIdent(e.Name) {
			return fmt.Errorf("entity %q: not an identifier", e.Name)
		}
	}
	for _, d := range r.Dimensions {
		if !isIdent(d.Name) {
			return fmt.Errorf("dimension %q: not an identifier", d.Name)
		}
	}
	for _, me := range r.Measures {
		if !isIdent(me.Name) {
			return fmt.Errorf("measure %q: not an identifier", me.Name)
		}
	}
	table, err := tableOf(r.NodeRelation)
	if err != nil {
		return fmt.Errorf("node_relation: %w", err)
	}
	sm := &Model{Name: r.Name, Description: r.Description, Table: table, PrimaryEntity: r.PrimaryEntity, manifest: m}
	if r.Defaults != nil {
		sm.AggTime = r.Defaults.AggTimeDimension
	}
	for _, e := range r.Entities {
		sm.Entities = append(sm.Entities, &Entity{Name: e.Name, Type: strings.ToLower(e.Type), Expr: or(e.Expr, e.Name)})
	}
	for _, d := range r.Dimensions {
		dim := &Dimension{Name: d.Name, Type: strings.ToLower(d.Type), Expr: or(d.Expr, d.Name), Description: d.Description}
		if dim.Type == "time" {
			dim.Grain = "day"
			if d.TypeParams != nil && d.TypeParams.Grain != "" {
				dim.Grain = strings.ToLower(d.TypeParams.Grain)
			}
		}
		sm.Dimensions = append(sm.Dimensions, dim)
	}
	for i, ms := range r.Measures {
		me := &Measure{Name: ms.Name, Agg: strings.ToLower(ms.Agg), Expr: or(ms.Expr, ms.Name), Model: sm, AggTime: or(ms.AggTimeDimension, sm.AggTime), NonAdditive: ms.NonAdditive}
		if err := me.setParams(ms.AggParams); err != nil {
			return fmt.Errorf("measures[%d] (%s): %w", i, ms.Name, err)
		}
		if me.AggTime != "" && sm.dimension(me.AggTime) == nil {
			return fmt.Errorf("measures[%d] (%s): agg_time_dimension %q is not a dimension of the model", i, ms.Name, me.AggTime)
		}
		sm.Measures = append(sm.Measures, me)
	}
	m.models[r.Name] = sm
	return nil
}

// setParams reads a measure's aggregation parameters; median is the 0.5
// percentile, as MetricFlow reads it.
func (me *Measure) setParams(p *aggParamsJSON) error {
	if p != nil {
		me.Approximate, me.Discrete = p.Approximate, p.Discrete
		if p.Percentile != nil {
			me.Percentile = *p.Percentile
		}
	}
	if me.Agg == "median" {
		me.Agg, me.Percentile = "percentile", 0.5
	}
	if me.Agg == "percentile" && (me.Percentile <= 0 || me.Percentile >= 1) {
		return fmt.Errorf("agg_params.percentile %v is not between 0 and 1", me.Percentile)
	}
	return nil
}

func (m *Manifest) addSpine(raw *manifestJSON) error {
	for _, s := range raw.Project.TimeSpines {
		if s.PrimaryColumn.Grain != "" && !strings.EqualFold(s.PrimaryColumn.Grain, "day") {
			continue
		}
		t, err := tableOf(s.NodeRelation)
		if err != nil {
			return fmt.Errorf("time_spines: node_relation: %w", err)
		}
		m.spine = &TimeSpine{Table: t, Column: s.PrimaryColumn.Name}
		return nil
	}
	for _, s := range raw.Project.TimeSpineTables {
		if s.Grain != "" && !strings.EqualFold(s.Grain, "day") {
			continue
		}
		parts := strings.Split(strings.ReplaceAll(s.Location, "`", ""), ".")
		if len(parts) < 2 || len(parts) > 3 {
			return fmt.Errorf("time_spine_table_configurations: location %q is not dataset.table or project.dataset.table", s.Location)
		}
		rel := relationJSON{Alias: parts[len(parts)-1], Schema: parts[len(parts)-2]}
		if len(parts) == 3 {
			rel.Database = parts[0]
		}
		t, err := tableOf(rel)
		if err != nil {
			return fmt.Errorf("time_spine_table_configurations: %w", err)
		}
		m.spine = &TimeSpine{Table: t, Column: s.ColumnName}
		return nil
	}
	return nil
}

// tableOf checks a node_relation names a table that can exist: the
// compiler writes it into SQL, so nothing but a valid name may pass.
func tableOf(r relationJSON) (bqtype.TableRef, error) {
	t := bqtype.TableRef{Project: r.Database, Dataset: r.Schema, Table: r.Alias}
	if t.Project != "" {
		if err := bqtype.ValidateProjectID(t.Project); err != nil {
			return t, fmt.Errorf("database %q: %w", t.Project, err)
		}
	}
	if err := bqtype.ValidateDatasetID(t.Dataset); err != nil {
		return t, fmt.Errorf("schema_name %q: %w", t.Dataset, err)
	}
	if err := bqtype.ValidateTableID(t.Table); err != nil {
		return t, fmt.Errorf("alias %q: %w", t.Table, err)
	}
	return t, nil
}

// placeJSONError says where in the file a JSON error is: line and column,
// or the field whose value has the wrong type.
func placeJSONError(b []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(b, syn.Offset)
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	case errors.As(err, &typ):
		line, col := lineCol(b, typ.Offset)
		return fmt.Errorf("line %d, column %d (%s): %w", line, col, typ.Field, err)
	}
	return err
}

func lineCol(b []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	return line, int(off) - bytes.LastIndexByte(before, '\n')
}

func or(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

func (sm *Model) dimension(name string) *Dimension {
	for _, d := range sm.Dimensions {
		if d.Name == name {
			return d
		}
	}
	return nil
}

func (sm *Model) entity(name string) *Entity {
	for _, e := range sm.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func (sm *Model) measureNamed(name string) *Measure {
	for _, me := range sm.Measures {
		if me.Name == name {
			return me
		}
	}
	return nil
}

// tableSQL is the table as SQL names it, backquoted.
func tableSQL(t bqtype.TableRef) string { return "`" + t.String() + "`" }
