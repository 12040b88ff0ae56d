package query

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// graphEdge is an edge element: its table and the node elements (by name)
// it goes from and to.
type graphEdge struct{ table, from, to string }

// graphDef is a graph's property_graph_metadata_json as BigQuery writes
// it: each node element named after its table's last part, each element's
// dataSourceTable fully qualified.
func graphDef(t testing.TB, graph string, nodes []string, edges ...graphEdge) string {
	t.Helper()
	source := func(table string) map[string]any {
		p := strings.Split(table, ".")
		return map[string]any{"projectId": p[0], "datasetId": p[1], "tableId": p[2]}
	}
	name := func(table string) string { return table[strings.LastIndex(table, ".")+1:] }
	ref := func(node string) map[string]any {
		return map[string]any{"nodeTable": node, "nodeTableColumns": []string{"id"}, "edgeTableColumns": []string{"id"}}
	}
	var ns, es []any
	for _, n := range nodes {
		ns = append(ns, map[string]any{"name": name(n), "dataSourceTable": source(n), "keyColumns": []string{"id"},
			"labelAndProperties": []any{map[string]any{"label": name(n), "properties": []any{}}}})
	}
	for _, e := range edges {
		es = append(es, map[string]any{"name": e.table, "dataSourceTable": source(e.table), "keyColumns": []string{"id"},
			"sourceNodeReference": ref(e.from), "destinationNodeReference": ref(e.to)})
	}
	p := strings.Split(graph, ".")
	b, err := json.Marshal(map[string]any{
		"creationTime": "2026-02-14T23:25:51.378016Z", "etag": "x",
		"propertyGraphReference": map[string]any{"projectId": p[0], "datasetId": p[1], "propertyGraphId": p[2]},
		"nodeTables":             ns, "edgeTables": es,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// addGraph registers graph (project.dataset.name) with the fake.
func addGraph(fake *planBigQuery, graph, def string) {
	p := strings.Split(graph, ".")
	fake.AddPropertyGraph(bqfake.PropertyGraph{Project: p[0], Dataset: p[1], Name: p[2], MetadataJSON: def})
}

// graphPositions are the graph g of the dataset sales in every position
// GoogleSQL reads a graph query.
var graphPositions = []string{
	"SELECT * FROM GRAPH_TABLE(sales.g MATCH (a:people)-[t:transfers]->(b:people) COLUMNS (a.id, b.id AS to_id))",
	"SELECT (SELECT COUNT(*) FROM GRAPH_TABLE(sales.g MATCH (n) COLUMNS (n.id))) AS n",
	"WITH x AS (SELECT * FROM GRAPH_TABLE(`p.sales.g` MATCH (n:people) COLUMNS (n.id))) SELECT * FROM x",
	"GRAPH sales.g MATCH (a:people)-[:transfers]->(b:people) RETURN a.id, COUNT(b) AS n GROUP BY a.id",
	"SELECT * FROM sales.orders WHERE id IN (GRAPH sales.g MATCH (n:people) RETURN n.id)",
	"SELECT * FROM GRAPH_EXPAND('sales.g')",
	"FROM sales.orders |> JOIN GRAPH_TABLE(sales.g MATCH (n:people) COLUMNS (n.id AS id)) USING (id)",
}

// graphPlans are the dry runs of graphPositions: BigQuery lists the
// graph's tables (and the orders the text names).
func graphPlans(tables ...string) map[string]plan {
	plans := map[string]plan{}
	for _, sql := range graphPositions {
		tt := append([]string{}, tables...)
		if strings.Contains(sql, "sales.orders") {
			tt = append(tt, "p.sales.orders")
		}
		plans[sql] = plan{"SELECT", tt, 100}
	}
	return plans
}

// TestGraphOverAllowedTablesRuns: a graph of an allowed dataset built on
// allowed tables runs in every position, after one lookup of its
// definition; the next call reads it from the cache (and is dry-run
// again: a definition can change), and dry_run_sql too.
func TestGraphOverAllowedTablesRuns(t *testing.T) {
	for _, sql := range graphPositions {
		t.Run(sql, func(t *testing.T) {
			s, fake := newGovernedService(t, graphPlans("p.sales.people", "p.mkt_eu.transfers"), false)
			addGraph(fake, "p.sales.g", graphDef(t, "p.sales.g", []string{"p.sales.people"}, graphEdge{"p.mkt_eu.transfers", "people", "people"}))
			ctx := context.Background()
			if _, err := s.Execute(ctx, ExecuteInput{SQL: sql}); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if d, q, _ := fake.counts(); fake.graphLookups() != 1 || q != 1 || d != 1 {
				t.Fatalf("%d lookups, %d jobs, %d dry runs; want 1 of each", fake.graphLookups(), q, d)
			}
			lookup := fake.Requests(bqfake.JobsQuery)[0].QueryRequest
			if !strings.Contains(lookup.Query, "FROM `p.sales`.INFORMATION_SCHEMA.PROPERTY_GRAPHS WHERE property_graph_name = @name") ||
				len(lookup.QueryParameters) != 1 || lookup.QueryParameters[0].ParameterValue.Value != "g" || lookup.RequestId == "" {
				t.Errorf("lookup = %q %+v (requestId %q)", lookup.Query, lookup.QueryParameters, lookup.RequestId)
			}
			if _, err := s.Execute(ctx, ExecuteInput{SQL: sql}); err != nil {
				t.Fatalf("second Execute: %v", err)
			}
			if out, err := s.DryRun(ctx, DryRunInput{SQL: sql}); err != nil || !out.WouldExecute {
				t.Fatalf("DryRun = %+v, %v", out, err)
			}
			if d, q, _ := fake.counts(); fake.graphLookups() != 1 || q != 2 || d != 3 {
				t.Errorf("after a second call and a dry run: %d lookups, %d jobs, %d dry runs; want 1, 2, 3", fake.graphLookups(), q, d)
			}
		})
	}
}

// TestGraphOverTableOutsideRefused: a graph of an allowed dataset with a
// node or an edge table outside the allowlist is refused in every
// position after its lookup, with no dry run and no job, by execute_sql
// and dry_run_sql alike; the error names the graph and the table.
func TestGraphOverTableOutsideRefused(t *testing.T) {
	for _, def := range []struct{ name, outside string }{
		{"edge", "p.secret.transfers"},
		{"node", "other.hr.people"},
	} {
		for _, sql := range graphPositions {
			t.Run(def.name+"/"+sql, func(t *testing.T) {
				s, fake := newGovernedService(t, graphPlans("p.sales.people"), false)
				nodes, edge := []string{"p.sales.people"}, graphEdge{"p.sales.transfers", "people", "people"}
				if def.name == "edge" {
					edge.table = def.outside
				} else {
					nodes = append(nodes, def.outside)
				}
				addGraph(fake, "p.sales.g", graphDef(t, "p.sales.g", nodes, edge))
				_, err := s.Execute(context.Background(), ExecuteInput{SQL: sql})
				e, ok := bqerr.As(err)
				if !ok || e.Code != bqerr.PermissionDenied || !strings.Contains(e.Message, "property graph p.sales.g") || !strings.Contains(e.Message, def.outside) || e.Hint == "" {
					t.Fatalf("Execute = %v, want PERMISSION_DENIED naming the graph and %s", err, def.outside)
				}
				assertRefusedWithoutJob(t, s, fake, sql)
				if n := fake.graphLookups(); n != 1 {
					t.Errorf("%d lookups, want 1 (the refusal reads the cache)", n)
				}
			})
		}
	}
}

// TestGraphRefusedBeforeAnyLookup: a graph outside the allowlist, one the
// text cannot place, or a statement with another object outside is refused
// from the text, with no lookup.
func TestGraphRefusedBeforeAnyLookup(t *testing.T) {
	for _, sql := range []string{
		"SELECT * FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))",
		"GRAPH `other.sales.g` MATCH (n) RETURN n.id",
		"SELECT * FROM GRAPH_EXPAND('secret.g')",
		"SELECT * FROM GRAPH_TABLE(g MATCH (n) COLUMNS (n.id))",
		"SELECT * FROM GRAPH_TABLE(sales.g MATCH (n) COLUMNS (n.id)), secret.orders",
		"SELECT * FROM GRAPH_EXPAND(@g)",
	} {
		t.Run(sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, false)
			addGraph(fake, "p.sales.g", graphDef(t, "p.sales.g", []string{"p.sales.people"}))
			assertRefusedWithoutJob(t, s, fake, sql)
			if n := fake.graphLookups(); n != 0 {
				t.Errorf("%d lookups, want none", n)
			}
		})
	}
	// A one-part name is the default dataset's graph.
	s, fake := newGovernedService(t, map[string]plan{"GRAPH g MATCH (n) RETURN n.id": {"SELECT", []string{"p.sales.people"}, 1}}, false)
	addGraph(fake, "p.sales.g", graphDef(t, "p.sales.g", []string{"p.sales.people"}))
	if _, err := s.Execute(context.Background(), ExecuteInput{SQL: "GRAPH g MATCH (n) RETURN n.id", DefaultDataset: "sales"}); err != nil || fake.graphLookups() != 1 {
		t.Errorf("a graph of the default dataset: %v, %d lookups", err, fake.graphLookups())
	}
}

// TestGraphLookupFailsClosed: a lookup that fails, finds no graph, or
// finds a definition this server cannot read to its last table refuses
// the statement with an error naming the graph and why, with no dry run
// and no job; a failure is not remembered.
func TestGraphLookupFailsClosed(t *testing.T) {
	const sql = "SELECT * FROM GRAPH_TABLE(sales.g MATCH (n) COLUMNS (n.id))"
	for _, tc := range []struct {
		name string
		// def is the graph's definition; none is added when empty.
		def   string
		fault func(*planBigQuery)
		code  bqerr.Code
		says  string
	}{
		{name: "lookup error", def: "{}", code: bqerr.PermissionDenied, says: "could not be read from INFORMATION_SCHEMA.PROPERTY_GRAPHS",
			fault: func(f *planBigQuery) {
				f.On(bqfake.JobsQuery).When(isGraphLookup).Fail(http.StatusForbidden, "accessDenied")
			}},
		{name: "no such graph", code: bqerr.NotFound, says: "is not in its dataset's INFORMATION_SCHEMA.PROPERTY_GRAPHS"},
		{name: "malformed JSON", def: `{"nodeTables": [`, code: bqerr.PermissionDenied, says: "not a JSON object"},
		{name: "no node tables", def: `{"edgeTables": []}`, code: bqerr.PermissionDenied, says: "no node tables"},
		{name: "element without its table", def: `{"nodeTables": [{"name": "people"}]}`, code: bqerr.PermissionDenied, says: "no dataSourceTable"},
		{name: "a table without its project", def: `{"nodeTables": [{"name": "people", "dataSourceTable": {"datasetId": "sales", "tableId": "people"}}]}`,
			code: bqerr.PermissionDenied, says: "is not exactly projectId, datasetId and tableId"},
		{name: "a source of unknown shape", def: `{"nodeTables": [{"name": "people", "dataSourceTable": {"projectId": "p", "datasetId": "sales", "tableId": "people"}, "dataSourceView": "p.secret.v"}]}`,
			code: bqerr.PermissionDenied, says: `"dataSourceView"`},
		{name: "two rows", code: bqerr.PermissionDenied, says: "more than one row",
			fault: func(f *planBigQuery) {
				f.On(bqfake.JobsQuery).When(isGraphLookup).Reply(graphRows(graphDef(t, "p.sales.g", []string{"p.sales.people"}), "{}"))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, false)
			fake.AddDataset("sales", "US")
			if tc.def != "" {
				addGraph(fake, "p.sales.g", tc.def)
			}
			if tc.fault != nil {
				tc.fault(fake)
			}
			for _, call := range []func() error{
				func() error { _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); return err },
				func() error { _, err := s.DryRun(context.Background(), DryRunInput{SQL: sql}); return err },
			} {
				e, ok := bqerr.As(call())
				if !ok || e.Code != tc.code || !strings.Contains(e.Message, "property graph p.sales.g") || !strings.Contains(e.Message, tc.says) || e.Hint == "" {
					t.Fatalf("refusal = %v (hint %q), want %s saying %q", e, e.Hint, tc.code, tc.says)
				}
			}
			if d, q, _ := fake.counts(); d != 0 || q != 0 {
				t.Errorf("%d dry runs and %d jobs, want none", d, q)
			}
			if n := fake.graphLookups(); n != 2 {
				t.Errorf("%d lookups, want 2 (a failed lookup is not remembered)", n)
			}
		})
	}
}

// isGraphLookup matches the allowlist's lookup of a graph's definition.
func isGraphLookup(r *bqfake.Request) bool {
	return r.QueryRequest != nil && strings.Contains(r.QueryRequest.Query, "INFORMATION_SCHEMA.PROPERTY_GRAPHS")
}

// graphRows is a finished jobs.query answer of the lookup with one row per
// definition.
func graphRows(defs ...string) map[string]any {
	var rows []any
	for _, d := range defs {
		rows = append(rows, map[string]any{"f": []any{map[string]any{"v": d}}})
	}
	return map[string]any{"kind": "bigquery#queryResponse", "jobComplete": true, "totalRows": "2",
		"jobReference": map[string]any{"projectId": "p", "jobId": "lookup", "location": "US"},
		"schema":       map[string]any{"fields": []any{map[string]any{"name": "property_graph_metadata_json", "type": "STRING"}}},
		"rows":         rows}
}

// TestGraphLookupBudgetAndBreaker: the lookup holds BigQuery's 10 MB
// minimum in the caller's budget, and a budget without room refuses the
// graph query with no lookup; with the query breaker open the lookup is
// refused at once, with no request, and says to try again.
func TestGraphLookupBudgetAndBreaker(t *testing.T) {
	const sql = "SELECT * FROM GRAPH_TABLE(sales.g MATCH (n) COLUMNS (n.id))"
	s, fake := newGovernedService(t, nil, false, func(c *Config) {
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerSession: 5 << 20}), nil)
	})
	addGraph(fake, "p.sales.g", graphDef(t, "p.sales.g", []string{"p.sales.people"}))
	_, err := s.Execute(context.Background(), ExecuteInput{SQL: sql})
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted || !strings.Contains(e.Message, "property graph p.sales.g") {
		t.Errorf("over budget: %v, want RESOURCE_EXHAUSTED naming the graph", err)
	}
	if n := fake.Count(bqfake.Any); n != 0 {
		t.Errorf("%d requests over budget, want none", n)
	}

	cfg := resilience.Defaults()
	cfg.Retry[resilience.Query] = resilience.Policy{Attempts: 1, Timeout: 10 * time.Second}
	cfg.Breaker = resilience.Breaker{Failures: 1, Open: time.Hour, Successes: 1}
	exec, err := resilience.NewExecutor(cfg, resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	s, fake = newGovernedService(t, nil, false, func(c *Config) { c.Executor = exec })
	addGraph(fake, "p.sales.g", graphDef(t, "p.sales.g", []string{"p.sales.people"}))
	fake.On(bqfake.JobsQuery).When(isGraphLookup).Fail(http.StatusServiceUnavailable, "backendError")
	if _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); err == nil {
		t.Fatal("a failed lookup let the query through")
	}
	before := fake.Count(bqfake.Any)
	_, err = s.Execute(context.Background(), ExecuteInput{SQL: sql})
	e, ok := bqerr.As(err)
	if !ok || e.Code != bqerr.Unavailable || !e.Retryable || !strings.Contains(e.Message, "property graph p.sales.g") || !strings.Contains(e.Hint, "No query ran") {
		t.Errorf("breaker open: %v (hint %q), want UNAVAILABLE, retryable, naming the graph", err, e.Hint)
	}
	if n := fake.Count(bqfake.Any) - before; n != 0 {
		t.Errorf("%d requests with the breaker open, want none", n)
	}
}

// TestGraphWithoutAllowlistNoLookup: without an allowlist a graph query
// runs as any query does, with no lookup.
func TestGraphWithoutAllowlistNoLookup(t *testing.T) {
	fake := newPlanBigQuery(t, graphPlans("p.sales.people"))
	s := newTestService(t, fake)
	for _, sql := range graphPositions {
		if _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	if n := fake.graphLookups(); n != 0 {
		t.Errorf("%d lookups without an allowlist, want none", n)
	}
}

// TestGraphDDL: CREATE PROPERTY GRAPH is checked by the tables its text
// names (the graph does not exist yet), DROP PROPERTY GRAPH by the graph's
// dataset; neither looks anything up.
func TestGraphDDL(t *testing.T) {
	create := "CREATE OR REPLACE PROPERTY GRAPH sales.g NODE TABLES (sales.people KEY (id), mkt_eu.accounts KEY (id)) " +
		"EDGE TABLES (sales.owns SOURCE KEY (id) REFERENCES people (id) DESTINATION KEY (account_id) REFERENCES accounts (id) LABEL Owns)"
	allowed := []string{create, "DROP PROPERTY GRAPH IF EXISTS sales.g", "DROP PROPERTY GRAPH `p.mkt_eu.g`"}
	refused := []string{
		"CREATE PROPERTY GRAPH sales.g NODE TABLES (sales.people KEY (id), secret.accounts KEY (id))",
		"CREATE PROPERTY GRAPH sales.g NODE TABLES (sales.people) EDGE TABLES (`p.secret.owns` SOURCE KEY (id) REFERENCES people DESTINATION KEY (id) REFERENCES people)",
		"CREATE PROPERTY GRAPH secret.g NODE TABLES (sales.people)",
		"DROP PROPERTY GRAPH secret.g",
	}
	plans := map[string]plan{}
	for _, sql := range allowed {
		plans[sql] = plan{"CREATE_PROPERTY_GRAPH", nil, 0}
	}
	s, fake := newGovernedService(t, plans, true)
	for _, sql := range allowed {
		if _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	for _, sql := range refused {
		t.Run(sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, true)
			assertRefusedWithoutJob(t, s, fake, sql)
		})
	}
	if n := fake.graphLookups(); n != 0 {
		t.Errorf("%d lookups for graph DDL, want none", n)
	}
}

// finGraph is BigQuery's documentation graph (graph_db.FinGraph): Person
// and Account nodes, Owns and Transfers edges.
func finGraph(t testing.TB) string {
	return graphDef(t, "p.graph_db.FinGraph", []string{"p.graph_db.Person", "p.graph_db.Account"},
		graphEdge{"p.graph_db.PersonOwnAccount", "Person", "Account"},
		graphEdge{"p.graph_db.AccountTransferAccount", "Account", "Account"})
}

// finGraphExamples are the graph queries of BigQuery's graph
// documentation (the query overview and the GQL reference), on FinGraph.
var finGraphExamples = []string{
	"GRAPH graph_db.FinGraph\nMATCH (n)\nRETURN LABELS(n) AS label, n.id",
	"GRAPH graph_db.FinGraph\nMATCH (p:Person)\nRETURN LABELS(p) AS label, p.id, p.name",
	"GRAPH graph_db.FinGraph\nMATCH (n:Person|Account)\nRETURN LABELS(n) AS label, n.id, n.birthday, n.create_time",
	"GRAPH graph_db.FinGraph\nMATCH (p:Person {name: 'Dana'})-[o:Owns]->(a:Account)\nRETURN p.name, a.id AS account_id",
	"GRAPH graph_db.FinGraph\nMATCH (src:Account)-[t:Transfers]->{1,3}(dst:Account)\nWHERE src.id = 7\nRETURN DISTINCT dst.id AS reachable",
	"GRAPH graph_db.FinGraph\nMATCH (src:Account)-[t:Transfers]->(dst:Account)\nLET amount_k = t.amount / 1000\nFILTER amount_k > 0.1\nRETURN src.id AS src_id, SUM(amount_k) AS total_k\nGROUP BY src_id\nORDER BY total_k DESC\nLIMIT 3",
	"GRAPH graph_db.FinGraph\nMATCH ANY SHORTEST (a:Account {id: 7})-[:Transfers]->{1,5}(b:Account {id: 20})\nRETURN a.id AS src, b.id AS dst",
	"SELECT person, account_id\nFROM GRAPH_TABLE(\n  graph_db.FinGraph\n  MATCH (p:Person)-[:Owns]->(a:Account)\n  COLUMNS (p.name AS person, a.id AS account_id)\n)\nORDER BY person",
}

// TestGraphDocumentationExamples: BigQuery's documentation examples of
// graph queries run under an allowlist of exactly graph_db, after one
// lookup of FinGraph's definition; with its transfers in another dataset
// each is refused; and FinGraph's CREATE PROPERTY GRAPH runs with
// --allow-writes, checked by the tables it names.
func TestGraphDocumentationExamples(t *testing.T) {
	plans := map[string]plan{}
	for _, sql := range finGraphExamples {
		plans[sql] = plan{"SELECT", []string{"p.graph_db.Person", "p.graph_db.Account", "p.graph_db.PersonOwnAccount", "p.graph_db.AccountTransferAccount"}, 100}
	}
	s, fake := everydayService(t, plans, "graph_db", false, []string{"graph_db", "finance"})
	addGraph(fake, "p.graph_db.FinGraph", finGraph(t))
	for _, sql := range finGraphExamples {
		if _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	if _, q, _ := fake.counts(); fake.graphLookups() != 1 || q != len(finGraphExamples) {
		t.Errorf("%d lookups and %d jobs, want 1 and %d", fake.graphLookups(), q, len(finGraphExamples))
	}

	s, fake = everydayService(t, plans, "graph_db", false, []string{"graph_db", "finance"})
	addGraph(fake, "p.graph_db.FinGraph", graphDef(t, "p.graph_db.FinGraph", []string{"p.graph_db.Person", "p.graph_db.Account"},
		graphEdge{"p.finance.AccountTransferAccount", "Account", "Account"}))
	for _, sql := range finGraphExamples {
		assertRefusedWithoutJob(t, s, fake, sql)
	}

	create := `CREATE OR REPLACE PROPERTY GRAPH graph_db.FinGraph
  NODE TABLES (
    graph_db.Account,
    graph_db.Person
  )
  EDGE TABLES (
    graph_db.PersonOwnAccount
      SOURCE KEY (id) REFERENCES Person (id)
      DESTINATION KEY (account_id) REFERENCES Account (id)
      LABEL Owns,
    graph_db.AccountTransferAccount
      SOURCE KEY (id) REFERENCES Account (id)
      DESTINATION KEY (to_id) REFERENCES Account (id)
      LABEL Transfers
  )`
	s, fake = everydayService(t, map[string]plan{create: {"CREATE_PROPERTY_GRAPH", nil, 0}}, "graph_db", true, []string{"graph_db", "finance"})
	if _, err := s.Execute(context.Background(), ExecuteInput{SQL: create}); err != nil {
		t.Errorf("CREATE PROPERTY GRAPH: %v", err)
	}
	s, fake = everydayService(t, nil, "graph_db", true, []string{"graph_db", "finance"})
	assertRefusedWithoutJob(t, s, fake, strings.Replace(create, "graph_db.AccountTransferAccount", "finance.AccountTransferAccount", 1))
	if n := fake.graphLookups(); n != 0 {
		t.Errorf("%d lookups for CREATE PROPERTY GRAPH, want none", n)
	}
}

// TestGraphDefinitionAsBigQueryWritesIt: a property_graph_metadata_json in
// the shape BigQuery returns (typed properties, an edge named by its
// table's path, times and etag) gives its node and edge tables, each once;
// a node table of another project keeps its project.
func TestGraphDefinitionAsBigQueryWritesIt(t *testing.T) {
	const def = `{
	  "creationTime": "2026-02-14T23:25:51.378016Z",
	  "edgeTables": [{
	    "dataSourceTable": {"datasetId": "arxiv", "projectId": "graphs-poc", "tableId": "edges"},
	    "destinationNodeReference": {"edgeTableColumns": ["target_id"], "nodeTable": "nodes", "nodeTableColumns": ["id"]},
	    "keyColumns": ["id", "target_id"],
	    "labelAndProperties": [{"label": "edge", "properties": [{"dataType": {"typeKind": "STRING"}, "expression": "source", "name": "source"}]}],
	    "name": "graphs-poc.arxiv.edges",
	    "sourceNodeReference": {"edgeTableColumns": ["id"], "nodeTable": "nodes", "nodeTableColumns": ["id"]}
	  }],
	  "etag": "LLU+8RdCldBSyg46UncjUA==",
	  "lastModifiedTime": "2026-02-14T23:25:51.378016Z",
	  "nodeTables": [
	    {"dataSourceTable": {"datasetId": "arxiv", "projectId": "graphs-poc", "tableId": "nodes"}, "keyColumns": ["id"],
	     "labelAndProperties": [{"label": "node", "properties": [{"dataType": {"arrayElementType": {"typeKind": "FLOAT64"}, "typeKind": "ARRAY"}, "expression": "feat", "name": "feat"}]}],
	     "name": "nodes"},
	    {"dataSourceTable": {"datasetId": "ref", "projectId": "other-project", "tableId": "nodes"}, "keyColumns": ["id"], "name": "more"}
	  ],
	  "propertyGraphReference": {"datasetId": "arxiv", "projectId": "graphs-poc", "propertyGraphId": "arxiv"}
	}`
	tables, err := graphElementTables(def)
	if err != nil {
		t.Fatal(err)
	}
	want := []tableRef{{"graphs-poc", "arxiv", "edges"}, {"graphs-poc", "arxiv", "nodes"}, {"other-project", "ref", "nodes"}}
	if len(tables) != len(want) {
		t.Fatalf("tables = %v, want %v", tables, want)
	}
	for i := range want {
		if tables[i] != want[i] {
			t.Errorf("tables = %v, want %v", tables, want)
		}
	}
	for _, bad := range []string{
		`[]`, `null`, `{"nodeTables": {}}`,
		`{"nodeTables": [{"name": "n", "dataSourceTable": {"projectId": "p", "datasetId": "d", "tableId": "t", "snapshotTime": "x"}}]}`,
		`{"nodeTables": [{"name": "n", "dataSourceTable": {"projectId": "p", "datasetId": "d", "tableId": ""}}]}`,
		`{"nodeTables": [{"name": "n", "dataSourceTable": {"projectId": "p", "datasetId": "d", "tableId": "t"}, "sourceNodeReference": {"nodeTable": "n"}}]}`,
		`{"nodeTables": [{"name": "n", "dataSourceTable": {"projectId": "p", "datasetId": "d", "tableId": "t"}}], "edgeTables": [{"name": "e", "dataSourceTable": {"projectId": "p", "datasetId": "d", "tableId": "e"}, "sourceNodeReference": {"nodeTable": "n"}}]}`,
		`{"nodeTables": [{"name": "n", "dataSourceTable": {"projectId": "p", "datasetId": "d", "tableId": "t"}}], "edgeTables": [{"name": "e", "dataSourceTable": {"projectId": "p", "datasetId": "d", "tableId": "e"}, "sourceNodeReference": {"nodeTable": "n"}, "destinationNodeReference": {"nodeTable": "x"}}]}`,
		`{"nodeTables": [{"name": "n", "DataSourceTable": {"projectId": "p", "datasetId": "d", "tableId": "t"}}]}`,
		`{"nodeTables": [{"name": "n", "dataSourceTable": {"projectId": "p", "datasetId": "d", "tableId": "t"}}], "baseTables": []}`,
	} {
		if tables, err := graphElementTables(bad); err == nil {
			t.Errorf("%s: read as %v, want an error", bad, tables)
		}
	}
}

// TestRetriedGraphLookupIsOneJob: a lookup whose first answer is lost is
// retried under the same requestId (one job, never two), and the caller's
// budget counts it once, at what it billed, with nothing left held.
func TestRetriedGraphLookupIsOneJob(t *testing.T) {
	_, fast := withOpLog(t)
	const sql = "SELECT * FROM GRAPH_TABLE(sales.g MATCH (n) COLUMNS (n.id))"
	s, fake := newGovernedService(t, map[string]plan{sql: {"SELECT", []string{"p.sales.people"}, 0}}, false, fast)
	addGraph(fake, "p.sales.g", graphDef(t, "p.sales.g", []string{"p.sales.people"}))
	fake.On(bqfake.JobsQuery).When(isGraphLookup).Times(1).FailAfter(http.StatusServiceUnavailable, "backendError")
	if _, err := s.DryRun(context.Background(), DryRunInput{SQL: sql}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range fake.Requests(bqfake.JobsQuery) {
		if isGraphLookup(r) {
			ids = append(ids, r.QueryRequest.RequestId)
		}
	}
	if len(ids) != 2 || ids[0] == "" || ids[0] != ids[1] {
		t.Fatalf("lookup attempts sent requestIds %q, want two attempts of one", ids)
	}
	rep, err := s.cfg.State.Report(context.Background(), "")
	if err != nil || rep.Today.Jobs != 1 || rep.Today.BytesBilled != 10<<20 || rep.Reserved != 0 {
		t.Errorf("spend after the retried lookup = %+v (reserved %d), %v; want one job of 10 MB, nothing held", rep.Today, rep.Reserved, err)
	}
}
