package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// Property graphs under the dataset allowlist. A graph query
// (GRAPH_TABLE(g …), GRAPH g MATCH …, GRAPH_EXPAND(g)) reads the node and
// edge tables the graph is built on, which may lie in any dataset and are
// not in the text. So a graph the text reads is allowed when its own
// dataset is (checkText, like any object) and every one of its element
// tables is: read from the graph's definition in its dataset's
// INFORMATION_SCHEMA.PROPERTY_GRAPHS (property_graph_metadata_json), by a
// lookup job run like cost advice's (job.Runner.Lookup: one job under a
// requestId chosen before the first attempt, BigQuery's 10 MB minimum held
// in the caller's budget, the call's deadline) and remembered for
// graphTablesTTL. What the lookup cannot settle refuses the statement
// before any dry run or job: a failed lookup, no such graph, a definition
// this server cannot read to the last element table. A graph the statement
// creates or drops (CREATE/DROP PROPERTY GRAPH) needs only its dataset
// allowed: the tables a new graph is built on are in the text, read as
// tables.
//
// The dry run still checks every table BigQuery reports, and a query that
// reads a graph is dry-run on every call (remember), so a definition
// changed since it was remembered meets that check.

// graphTablesTTL is how long a graph's element tables are remembered.
const graphTablesTTL = 5 * time.Minute

// maxGraphRows is how many rows the lookup reads: one graph has one row,
// and a second means the answer cannot be trusted.
const maxGraphRows = 2

// newGraphCache remembers graphs' element tables for graphTablesTTL.
func newGraphCache() *ttlCache[tableRef, []tableRef] {
	return newTTLCache[tableRef, []tableRef](1024, graphTablesTTL)
}

// graphRefs returns where BigQuery finds the graph o names, as resolve
// does for a table; a one-part name is in the default dataset. A one-part
// name without one cannot be placed: an error.
func (s *Service) graphRefs(r *request, o sqltext.Object) ([]tableRef, error) {
	if len(o.Path) == 1 {
		if r.defaultDataset == "" {
			return nil, s.cfg.Datasets.Denied("the statement names the property graph " + o.Path[0] + " without its dataset, and no defaultDataset says where it is, so the dataset allowlist cannot check it").
				WithHint("Name the graph with its dataset (dataset.graph), one of " + s.cfg.Datasets.String() + ".")
		}
		return []tableRef{{r.defaultProject, r.defaultDataset, o.Path[0]}}, nil
	}
	return s.resolve(r, o), nil
}

// readsGraph reports whether the text reads a property graph (rather than
// creating or dropping one).
func readsGraph(r *request) bool {
	for _, st := range r.text.Statements {
		for _, o := range st.Objects {
			if o.Kind == sqltext.Graph && !o.Write {
				return true
			}
		}
	}
	return false
}

// checkGraphs refuses a statement that reads a property graph built on a
// table outside the allowlist, or whose graph's tables it cannot learn.
// checkText has checked the graphs' own datasets, so no lookup is made
// for a graph outside the allowlist.
func (s *Service) checkGraphs(ctx context.Context, r *request) error {
	a := s.cfg.Datasets
	for _, st := range r.text.Statements {
		for _, o := range st.Objects {
			if o.Kind != sqltext.Graph || o.Write {
				continue
			}
			refs, err := s.graphRefs(r, o)
			if err != nil {
				return err
			}
			found := false
			for _, g := range refs {
				tables, ok, err := s.graphTables(ctx, r, g)
				if err != nil {
					return err
				}
				found = found || ok
				for _, t := range tables {
					if !a.Allows(t.project, t.dataset) {
						return a.Denied(fmt.Sprintf("the statement reads the property graph %s, which is built on the table %s, outside this server's dataset allowlist", g, t)).
							WithHint("A graph is read only when every node and edge table it is built on is in " + a.String() + ". Query the graph's tables of those datasets directly, or ask the user to allow the dataset.")
					}
				}
			}
			if !found {
				return bqerr.Newf(bqerr.NotFound, "the property graph %s is not in its dataset's INFORMATION_SCHEMA.PROPERTY_GRAPHS, so the dataset allowlist cannot check the tables it is built on", refs[0]).
					WithRetryable(false).
					WithHint("Check the graph's name and dataset (SELECT property_graph_name FROM dataset.INFORMATION_SCHEMA.PROPERTY_GRAPHS lists them).")
			}
		}
	}
	return nil
}

// graphTables returns the tables graph g is built on, from the cache or one
// lookup of its dataset's INFORMATION_SCHEMA.PROPERTY_GRAPHS; ok is false
// when the view has no such graph. Every way the lookup can fail is an
// error that names the graph.
func (s *Service) graphTables(ctx context.Context, r *request, g tableRef) (tables []tableRef, ok bool, err error) {
	if tables, ok := s.graphs.Get(g); ok {
		return tables, true, nil
	}
	a := s.cfg.Datasets
	if bqtype.ValidateProjectID(g.project) != nil || bqtype.ValidateDatasetID(g.dataset) != nil {
		return nil, false, a.Denied(fmt.Sprintf("the property graph %s is not named by a valid project and dataset, so the tables it is built on cannot be looked up", g))
	}
	failed := func(cause error) *bqerr.Error {
		e := bqerr.From(cause)
		return bqerr.Newf(e.Code, "the definition of the property graph %s could not be read from INFORMATION_SCHEMA.PROPERTY_GRAPHS (%s), so the dataset allowlist cannot check the tables it is built on", g, e.Message).
			WithCause(cause).WithRetryable(e.Retryable).
			WithHint("No query ran. " + strings.TrimSpace(e.Hint+" Try again once the lookup can run, or query the graph's tables directly."))
	}
	hold, err := s.cfg.State.Reserve(ctx, auth.CallerFrom(ctx).Principal, infoSchemaMinBytes)
	if err != nil {
		return nil, false, failed(err)
	}
	loc := ""
	if s.cfg.Catalog != nil {
		if l, err := s.cfg.Catalog.DatasetLocation(ctx, g.project, g.dataset); err == nil {
			loc = l
		}
	}
	q := job.QueryConfig(job.QuerySpec{
		SQL:    "SELECT property_graph_metadata_json FROM `" + g.project + "." + g.dataset + "`.INFORMATION_SCHEMA.PROPERTY_GRAPHS WHERE property_graph_name = @name",
		Params: []*bq.QueryParameter{{Name: "name", ParameterType: &bq.QueryParameterType{Type: "STRING"}, ParameterValue: &bq.QueryParameterValue{Value: g.table}}},
		// The lookup bills 10 MB; a little room, never the server cap.
		MaxBytesBilled: min(s.cfg.MaxBytesBilled, 10*infoSchemaMinBytes),
	})
	p, err := s.jobs.Lookup(ctx, q, loc, maxGraphRows, job.Charge{Reservation: hold, Estimate: infoSchemaMinBytes})
	if err != nil {
		return nil, false, failed(err)
	}
	if len(p.Rows) == 0 && p.Token == "" {
		return nil, false, nil
	}
	err = errors.New("the view has more than one row for it")
	if len(p.Rows) == 1 && p.Token == "" {
		var def string
		if row := p.Rows[0]; len(row.F) > 0 && row.F[0] != nil {
			def, _ = row.F[0].V.(string)
		}
		tables, err = graphElementTables(def)
	}
	if err != nil {
		return nil, false, a.Denied(fmt.Sprintf("the definition of the property graph %s cannot be read to the last node and edge table (%v), so the dataset allowlist cannot check it", g, err)).
			WithHint("Query the graph's tables of " + a.String() + " directly, with joins.")
	}
	s.graphs.Add(g, tables)
	return tables, true, nil
}
