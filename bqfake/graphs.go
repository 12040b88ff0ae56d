package bqfake

// INFORMATION_SCHEMA.PROPERTY_GRAPHS, which neither the emulator nor a
// table of the store serves: a test registers each graph's row
// (AddPropertyGraph), and a query job that reads the view of a dataset is
// answered with the rows of that dataset's graphs, as BigQuery documents
// the view (one row per graph; property_graph_catalog,
// property_graph_schema, property_graph_name, property_graph_metadata_json,
// ddl, all STRING). The rows land in a result table of the fake's, so
// jobs.query's first page and getQueryResults both read them.

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"

	bq "google.golang.org/api/bigquery/v2"
)

// PropertyGraph is one row of INFORMATION_SCHEMA.PROPERTY_GRAPHS.
type PropertyGraph struct {
	// Project (the fake's when empty) and Dataset hold the graph, named
	// Name.
	Project, Dataset, Name string
	// MetadataJSON is property_graph_metadata_json, kept as given so that
	// a test can serve a malformed definition too. BigQuery's shape:
	// {"propertyGraphReference": {…}, "nodeTables": [{"name": …,
	// "dataSourceTable": {"projectId", "datasetId", "tableId"},
	// "keyColumns": […], "labelAndProperties": […]}], "edgeTables": [{…,
	// "sourceNodeReference": {"nodeTable", "nodeTableColumns",
	// "edgeTableColumns"}, "destinationNodeReference": {…}}],
	// "creationTime", "lastModifiedTime", "etag"}.
	MetadataJSON string
	// DDL is the ddl column: a CREATE PROPERTY GRAPH statement.
	DDL string
}

// AddPropertyGraph adds g's row to its dataset's
// INFORMATION_SCHEMA.PROPERTY_GRAPHS (a graph of the same name is
// replaced). The dataset need not be added.
func (f *Fake) AddPropertyGraph(g PropertyGraph) {
	if g.Project == "" {
		g.Project = f.project
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, old := range f.graphs {
		if old.Project == g.Project && old.Dataset == g.Dataset && old.Name == g.Name {
			f.graphs[i] = g
			return
		}
	}
	f.graphs = append(f.graphs, g)
}

// propertyGraphColumns are the view's columns, in BigQuery's order.
var propertyGraphColumns = []string{"property_graph_catalog", "property_graph_schema", "property_graph_name", "property_graph_metadata_json", "ddl"}

// propertyGraphsQuery is the one shape of query of the view the fake
// answers: SELECT columns (or *) FROM qualifier.INFORMATION_SCHEMA.
// PROPERTY_GRAPHS, quoted in any of BigQuery's ways, optionally WHERE
// property_graph_name = @param or = 'literal'.
var propertyGraphsQuery = regexp.MustCompile("(?is)^\\s*SELECT\\s+(.+?)\\s+FROM\\s+([`A-Za-z0-9_.:-]+?)\\.INFORMATION_SCHEMA\\.PROPERTY_GRAPHS`?" +
	"(?:\\s+WHERE\\s+property_graph_name\\s*=\\s*(@[A-Za-z_][A-Za-z0-9_]*|'[^'\\\\]*'))?\\s*;?\\s*$")

// readsPropertyGraphs reports whether sql names the view at all.
func readsPropertyGraphs(sql string) bool {
	return strings.Contains(strings.ToUpper(sql), "INFORMATION_SCHEMA.PROPERTY_GRAPHS")
}

// propertyGraphsResult answers a query job that reads the view: its rows
// become a result table of the fake's, whose reference it returns. A
// dataset the fake does not know is 404 notFound, as BigQuery answers; a
// query of another shape is 400 invalidQuery, naming the shape the fake
// serves.
func (f *Fake) propertyGraphsResult(q *bq.JobConfigurationQuery, project string) (*bq.TableReference, error) {
	m := propertyGraphsQuery.FindStringSubmatch(q.Query)
	if m == nil {
		return nil, Errorf(http.StatusBadRequest, "invalidQuery", "bqfake serves INFORMATION_SCHEMA.PROPERTY_GRAPHS only as SELECT columns FROM dataset.INFORMATION_SCHEMA.PROPERTY_GRAPHS [WHERE property_graph_name = @p]")
	}
	var cols []int
	for _, c := range strings.Split(m[1], ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		found := false
		for i, name := range propertyGraphColumns {
			if c == "*" || c == name {
				cols, found = append(cols, i), true
			}
		}
		if !found {
			return nil, Errorf(http.StatusBadRequest, "invalidQuery", "Unrecognized name: %s", c)
		}
	}
	parts := strings.Split(strings.ReplaceAll(m[2], "`", ""), ".")
	dataset := parts[len(parts)-1]
	if len(parts) > 1 {
		project = strings.Join(parts[:len(parts)-1], ".")
	}
	name, filtered := "", m[3] != ""
	if filtered {
		if strings.HasPrefix(m[3], "'") {
			name = strings.Trim(m[3], "'")
		} else if name, filtered = parameter(q, m[3][1:]); !filtered {
			return nil, Errorf(http.StatusBadRequest, "invalidQuery", "Query parameter '%s' not found", m[3][1:])
		}
	}
	schema := &bq.TableSchema{}
	for _, i := range cols {
		schema.Fields = append(schema.Fields, &bq.TableFieldSchema{Name: propertyGraphColumns[i], Type: "STRING", Mode: "NULLABLE"})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	region := strings.HasPrefix(strings.ToLower(dataset), "region-")
	_, known := f.tables[project+"."+dataset]
	var rows []*bq.TableRow
	for _, g := range f.graphs {
		if g.Project != project || !region && g.Dataset != dataset {
			continue
		}
		known = true
		if filtered && g.Name != name {
			continue
		}
		values := []string{g.Project, g.Dataset, g.Name, g.MetadataJSON, g.DDL}
		row := &bq.TableRow{}
		for _, i := range cols {
			row.F = append(row.F, &bq.TableCell{V: values[i]})
		}
		rows = append(rows, row)
	}
	if !known && !region {
		return nil, Errorf(http.StatusNotFound, "notFound", "Not found: Dataset %s:%s was not found in location %s", project, dataset, f.location)
	}
	f.nextResult++
	ref := &bq.TableReference{ProjectId: f.project, DatasetId: "_bqfake", TableId: fmt.Sprintf("property_graphs_%d", f.nextResult)}
	key := ref.ProjectId + "." + ref.DatasetId
	f.tables[key] = append(f.tables[key], &table{meta: &bq.Table{Kind: "bigquery#table", TableReference: ref, Schema: schema, NumRows: uint64(len(rows))}, rows: rows})
	return clone(ref), nil
}

// parameter is the value of q's STRING parameter name.
func parameter(q *bq.JobConfigurationQuery, name string) (string, bool) {
	for _, p := range q.QueryParameters {
		if p.Name == name && p.ParameterValue != nil {
			return p.ParameterValue.Value, true
		}
	}
	return "", false
}
