package query

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// The dataset allowlist for statements decides from two independent
// readings, and either one refuses:
//
//   - the text (checkText, before any request): every object path sqltext
//     finds — tables, models, routines, datasets, property graphs, in
//     every position GoogleSQL names one — must resolve to an allowed
//     dataset, and a statement whose objects sqltext cannot all place is
//     refused; then the tables each graph it reads is built on, looked up
//     in its dataset's INFORMATION_SCHEMA (checkGraphs, graph.go);
//   - BigQuery's dry run (checkPlan, before the job): every table it reads
//     (views resolved to the tables under them), every routine it calls and
//     every object its DDL or DCL targets must be in an allowed dataset,
//     except the tables under an allowed view the text names (an
//     authorized view).
//
// The text is decided first, so a dry run's error about a name outside
// the allowlist (existence, a "Did you mean" column) never reaches the
// caller.

// Catalog answers from cached metadata what the service must know of the
// objects a query names: for the dataset allowlist, which tables are views
// and which datasets exist; for locations, where datasets live. The schema
// service implements it, so query needs no import of schema.
type Catalog interface {
	// TableType is TABLE, VIEW, MATERIALIZED_VIEW, EXTERNAL, SNAPSHOT…
	TableType(ctx context.Context, project, dataset, table string) (string, error)
	// DatasetIDs lists the IDs of every dataset of a project, whatever the
	// allowlist.
	DatasetIDs(ctx context.Context, project string) ([]string, error)
	// DatasetLocation returns a dataset's location ("" when BigQuery does
	// not say).
	DatasetLocation(ctx context.Context, project, dataset string) (string, error)
	// DatasetLocations returns the distinct locations of a project's
	// datasets.
	DatasetLocations(ctx context.Context, project string) ([]string, error)
	// TableLayout returns a table's size, partitioning and clustering, for
	// cost advice (advice.go); nil when unknown.
	TableLayout(ctx context.Context, project, dataset, table string) (*bqtype.TableLayout, error)
}

// maxReferencedTables is how many tables BigQuery lists in
// referencedTables at most; a query that reaches it may read more.
const maxReferencedTables = 50

// tableRef is one table (or routine, or model) as BigQuery names it; a
// dataset alone has no table.
type tableRef struct{ project, dataset, table string }

func (t tableRef) String() string {
	if t.table == "" {
		return t.project + "." + t.dataset
	}
	return t.project + "." + t.dataset + "." + t.table
}

// checkText refuses, from the text alone and before any request, a
// statement that names an object outside the allowlist or that the reader
// cannot account for.
func (s *Service) checkText(r *request) error {
	a := s.cfg.Datasets
	if r.defaultDataset != "" && !a.Allows(r.defaultProject, r.defaultDataset) {
		return a.Denied(fmt.Sprintf("defaultDataset %s.%s is not in this server's dataset allowlist", r.defaultProject, r.defaultDataset))
	}
	text := r.text
	if text.Incomplete != "" {
		return bqerr.Invalid(text.Incomplete, "Complete the SQL and send it again.")
	}
	if len(text.Statements) != 1 {
		return a.Denied("a script's objects cannot all be checked against the dataset allowlist before it runs").
			WithHint("Send one statement per call (temporary functions may come before a query): put values in the query as literals or @name query parameters instead of DECLARE and SET. This server only reads the datasets " + a.String() + ".")
	}
	st := text.Statements[0]
	if len(st.Unplaced) > 0 {
		return a.Denied(st.Unplaced[0] + ", so the dataset allowlist cannot be checked").
			WithHint("Under a dataset allowlist this server runs only statements whose every object it can place (docs/governance.md lists them). Name tables, models and routines of " + a.String() + " directly.")
	}
	if len(st.External) > 0 {
		return a.Denied(st.External[0] + ", which the dataset allowlist cannot check").
			WithHint("Under a dataset allowlist this server reads only BigQuery tables of " + a.String() + "; load or link files outside it another way.")
	}
	for _, uri := range st.ExportURIs {
		if !underGCSPrefix(uri, s.cfg.ExportGCS) {
			where := "this server has no export location (--export-gcs)"
			if s.cfg.ExportGCS != "" {
				where = "outside " + s.cfg.ExportGCS + "/ (--export-gcs)"
			}
			return a.Denied("the statement exports to " + uri + ", " + where).
				WithHint("Under a dataset allowlist EXPORT writes only below the server's --export-gcs prefix; export_results writes there too.")
		}
	}
	if st.Kind == "CALL" {
		return a.Denied("a procedure runs statements that cannot be checked against the dataset allowlist before it runs").
			WithHint("Run the procedure's statements one by one instead, on the datasets " + a.String() + ".")
	}
	for _, path := range st.InformationSchema {
		if err := s.checkInformationSchema(r, path); err != nil {
			return err
		}
	}
	for _, o := range st.Objects {
		switch o.Kind {
		case sqltext.Graph:
			// The graph's own dataset here; the tables it is built on
			// after every other object passed (checkGraphs).
			refs, err := s.graphRefs(r, o)
			if err != nil {
				return err
			}
			for _, ref := range refs {
				if !a.Allows(ref.project, ref.dataset) {
					return a.Denied(fmt.Sprintf("the statement names %s %s, outside this server's dataset allowlist", o.Kind, ref))
				}
			}
			continue
		case sqltext.Connection:
			if !s.cfg.Connections.Allows(o.Path, s.cfg.Project) {
				return a.Denied("the statement uses the connection " + strings.Join(o.Path, ".") + ", which reaches outside BigQuery's datasets and is not in this server's --connections (" + s.cfg.Connections.String() + ")").
					WithHint("Under a dataset allowlist only the connections the user lists in --connections can be used; read tables of " + a.String() + " instead.")
			}
			continue
		case sqltext.KMSKey:
			if !s.cfg.KMSKeys.Allows(o.Path) {
				return a.Denied("the statement names the Cloud KMS key " + kmsKeyName(o.Path) + ", which BigQuery uses with the job's credentials outside BigQuery's datasets and is not in this server's --kms-keys (" + s.cfg.KMSKeys.String() + ")").
					WithHint("Under a dataset allowlist only the Cloud KMS keys the user lists in --kms-keys can be named; read tables of " + a.String() + " without them.")
			}
			continue
		}
		for _, ref := range s.resolve(r, o) {
			if !a.Allows(ref.project, ref.dataset) {
				return a.Denied(fmt.Sprintf("the statement names %s %s, outside this server's dataset allowlist", o.Kind, ref))
			}
		}
	}
	return nil
}

// kmsKeyName is a Cloud KMS key's resource name, from its path [project
// location keyRing key].
func kmsKeyName(p []string) string {
	if len(p) != 4 {
		return strings.Join(p, "/")
	}
	return "projects/" + p[0] + "/locations/" + p[1] + "/keyRings/" + p[2] + "/cryptoKeys/" + p[3]
}

// resolve returns where BigQuery finds o: a dataset is [project.]dataset; any
// other object [[project.]dataset.]name. A two-part name is looked up in the
// job's project, which the default dataset's project may differ from, so
// both are returned. A one-part name of an object other than a dataset
// resolves in the default dataset (already checked), or is a CTE, alias or
// temporary object.
func (s *Service) resolve(r *request, o sqltext.Object) []tableRef {
	p := o.Path
	if o.Kind == sqltext.Dataset {
		switch len(p) {
		case 1:
			return []tableRef{{project: s.cfg.Project, dataset: p[0]}}
		default:
			return []tableRef{{project: p[0], dataset: strings.Join(p[1:], ".")}}
		}
	}
	switch len(p) {
	case 1:
		return nil
	case 2:
		refs := []tableRef{{s.cfg.Project, p[0], p[1]}}
		if r.defaultProject != "" && r.defaultProject != s.cfg.Project {
			refs = append(refs, tableRef{r.defaultProject, p[0], p[1]})
		}
		return refs
	default:
		return []tableRef{{p[0], p[1], strings.Join(p[2:], ".")}}
	}
}

// namedTables are the tables (and views) the text names, resolved.
func (s *Service) namedTables(r *request) []tableRef {
	var out []tableRef
	for _, st := range r.text.Statements {
		for _, o := range st.Objects {
			if o.Kind == sqltext.Table {
				out = append(out, s.resolve(r, o)...)
			}
		}
	}
	return out
}

// checkPlan refuses, before the job runs, a statement whose dry run reads,
// calls or targets an object outside the allowlist. Tables BigQuery lists
// outside the allowlist are let through only under an authorized view
// (checkThroughViews).
func (s *Service) checkPlan(ctx context.Context, r *request, plan *dryRunResult) error {
	a := s.cfg.Datasets
	if plan.StatementType == "SCRIPT" {
		return a.Denied("a script's objects cannot all be checked against the dataset allowlist before it runs").
			WithHint("Send one statement per call (temporary functions may come before a query): put values in the query as literals or @name query parameters instead of DECLARE and SET. This server only reads the datasets " + a.String() + ".")
	}
	if len(plan.ReferencedTables) >= maxReferencedTables {
		return a.Denied(fmt.Sprintf("the query reads %d or more tables, more than BigQuery lists for the dataset allowlist check", maxReferencedTables))
	}
	for _, o := range plan.objects {
		if !a.Allows(o.ref.project, o.ref.dataset) {
			return a.Denied(fmt.Sprintf("BigQuery reports that the statement %s %s, outside this server's dataset allowlist", o.role, o.ref))
		}
	}
	var outside []tableRef
	for _, t := range plan.ReferencedTables {
		ref := tableRef{t.ProjectID, t.DatasetID, t.TableID}
		if !a.Allows(ref.project, ref.dataset) {
			outside = append(outside, ref)
		}
	}
	named := s.namedTables(r)
	if len(plan.ReferencedTables) == 0 && len(named) > 0 && (plan.StatementType == "" || plan.StatementType == "SELECT") {
		return a.Denied("BigQuery did not report which tables the query reads, so the dataset allowlist cannot be checked").
			WithHint("This server fails closed when BigQuery's dry run lists no tables for a query that names one. Query tables of " + a.String() + " directly.")
	}
	if len(outside) == 0 {
		return nil
	}
	return s.checkThroughViews(ctx, r, named, outside)
}

// checkThroughViews decides a query BigQuery reports reading tables of
// datasets outside the allowlist (outside). That is allowed only when each
// such table is under a view of an allowed dataset that the query names
// (an authorized view), and the text gives no other way to reach it: every
// object it names is allowed (checkText made sure), and no identifier of
// the text, decoded, names the outside table's dataset or another dataset
// of the project outside the allowlist.
func (s *Service) checkThroughViews(ctx context.Context, r *request, named []tableRef, outside []tableRef) error {
	a := s.cfg.Datasets
	refuse := func(t tableRef) error {
		return a.Denied(fmt.Sprintf("the query reads %s, outside this server's dataset allowlist", t))
	}
	// A dataset of the project that is not allowed must not be named at all
	// (a view there could read the same tables as an authorized one).
	var ids []string
	if s.cfg.Catalog != nil {
		var err error
		if ids, err = s.cfg.Catalog.DatasetIDs(ctx, s.cfg.Project); err != nil {
			return bqerr.From(err)
		}
	}
	words := datasetWords(r.text, s.cfg.Project, ids)
	for _, t := range outside {
		if words.name(t.project, t.dataset) {
			return refuse(t)
		}
	}
	if s.cfg.Catalog == nil {
		return refuse(outside[0])
	}
	for _, id := range ids {
		if words.name(s.cfg.Project, id) && !a.Allows(s.cfg.Project, id) {
			return a.Denied(fmt.Sprintf("the query names dataset %s, outside this server's dataset allowlist", id))
		}
	}
	under := map[tableRef]bool{}
	for _, t := range named {
		typ, err := s.cfg.Catalog.TableType(ctx, t.project, t.dataset, t.table)
		if err != nil || (typ != "VIEW" && typ != "MATERIALIZED_VIEW") {
			continue
		}
		tables, err := s.viewTables(ctx, t)
		if err != nil {
			return err
		}
		for _, u := range tables {
			under[u] = true
		}
	}
	for _, t := range outside {
		if !under[t] {
			return refuse(t)
		}
	}
	return nil
}

// identifiers returns identifierWords lower-cased, as BigQuery compares
// column names.
func identifiers(text *sqltext.Text) map[string]bool {
	words := map[string]bool{}
	for w := range identifierWords(text) {
		words[strings.ToLower(w)] = true
	}
	return words
}

// identifierWords yields every identifier of the text and every part of a
// quoted one, decoded, but for aliases: a name right after AS that no '.'
// follows (SELECT id AS secret, FROM t AS secret) names a column or a range
// variable, never a dataset, and a path that starts with it elsewhere is
// still counted there.
func identifierWords(text *sqltext.Text) iter.Seq[string] {
	return func(yield func(string) bool) {
		n := text.NumTokens()
		for i := range n {
			if i > 0 && text.Token(i-1).IsWord("AS") && !(i+1 < n && text.Token(i+1).IsPunct('.')) {
				continue
			}
			t := text.Token(i)
			switch t.Kind {
			case sqltext.Word:
				if !yield(t.Text) {
					return
				}
			case sqltext.QuotedIdent:
				if !yield(t.Value) {
					return
				}
				for _, p := range strings.Split(t.Value, ".") {
					if !yield(p) {
						return
					}
				}
			}
		}
	}
}

// datasetNames are a text's identifiers (identifierWords) as they may
// name datasets: BigQuery compares dataset IDs case-sensitively (sales and
// Sales are two datasets), except a dataset created case-insensitive
// (is_case_insensitive), which answers to every spelling of its ID; no
// other dataset of its project can then have an ID that differs from its
// own only in case.
type datasetNames struct {
	// exact are the words as written, and folded the words by their
	// lower-cased form; project is the server's project, and shared
	// counts its dataset IDs by their lower-cased form.
	exact   map[string]bool
	folded  map[string]bool
	project string
	shared  map[string]int
}

func datasetWords(text *sqltext.Text, project string, ids []string) datasetNames {
	d := datasetNames{exact: map[string]bool{}, folded: map[string]bool{}, project: project, shared: map[string]int{}}
	for w := range identifierWords(text) {
		d.exact[w] = true
		d.folded[strings.ToLower(w)] = true
	}
	for _, id := range ids {
		d.shared[strings.ToLower(id)]++
	}
	return d
}

// name reports whether some word may name the dataset of project: its ID
// as written, or another spelling of it unless another dataset of the
// server's project has an ID that differs only in case (then both are
// case-sensitive). Of another project, whose datasets the server does not
// list, any spelling may.
func (d datasetNames) name(project, dataset string) bool {
	if d.exact[dataset] {
		return true
	}
	key := strings.ToLower(dataset)
	return d.folded[key] && (project != d.project || d.shared[key] < 2)
}

// viewTables returns the tables a view reads, from a dry run of a SELECT on
// it, remembered for a while: a view's definition rarely changes, and a
// changed one is still in an allowed dataset.
func (s *Service) viewTables(ctx context.Context, view tableRef) ([]tableRef, error) {
	if tables, ok := s.views.Get(view); ok {
		return tables, nil
	}
	sql := "SELECT * FROM `" + view.String() + "`"
	r := &request{sql: sql, text: sqltext.Parse(sql), maxBytesBilled: s.cfg.MaxBytesBilled, timeout: s.cfg.QueryTimeout}
	plan, err := s.dryRun(ctx, r)
	if err != nil {
		return nil, bqerr.From(err)
	}
	tables := make([]tableRef, 0, len(plan.ReferencedTables))
	for _, t := range plan.ReferencedTables {
		tables = append(tables, tableRef{t.ProjectID, t.DatasetID, t.TableID})
	}
	s.views.Add(view, tables)
	return tables, nil
}

// newViewCache remembers views' tables for viewTablesTTL.
func newViewCache() *ttlCache[tableRef, []tableRef] {
	return newTTLCache[tableRef, []tableRef](1024, viewTablesTTL)
}

// underGCSPrefix reports whether uri names objects below prefix
// (gs://bucket/prefix): the prefix's folder, not merely a name that starts
// the same (gs://b/exports2/… is not below gs://b/exports).
func underGCSPrefix(uri, prefix string) bool {
	if prefix == "" {
		return false
	}
	rest, ok := strings.CutPrefix(uri, strings.TrimSuffix(prefix, "/")+"/")
	return ok && rest != ""
}
