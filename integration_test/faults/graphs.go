package faults

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Property graphs, which the emulator has neither of nor
// INFORMATION_SCHEMA for: once a test sets a graph, a jobs.query of a
// dataset's INFORMATION_SCHEMA.PROPERTY_GRAPHS (the dataset allowlist's
// lookup of a graph's definition) is answered by the proxy, never
// forwarded, with the definition of the graph its @name parameter names
// (no row for a graph it does not know), billed BigQuery's 10 MB minimum.

// SetPropertyGraph makes project.dataset.name a graph with the given
// property_graph_metadata_json.
func (p *Proxy) SetPropertyGraph(project, dataset, name, metadataJSON string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.graphs == nil {
		p.graphs = map[string]string{}
	}
	p.graphs[project+"."+dataset+"."+name] = metadataJSON
}

// graphsView is the dataset qualifier of a query of the view.
var graphsView = regexp.MustCompile("`([^`]+)`\\.INFORMATION_SCHEMA\\.PROPERTY_GRAPHS")

// graphFor reports whether the proxy answers req (a query of the view,
// with graphs set), and with which definition, if any; project is the
// view's.
func (p *Proxy) graphFor(req Request, body []byte) (project, def string, found, answer bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := graphsView.FindStringSubmatch(req.Query)
	if p.graphs == nil || req.Op != "jobs.query" || m == nil {
		return "", "", false, false
	}
	project, _, _ = strings.Cut(m[1], ".")
	var q struct {
		QueryParameters []struct {
			Name           string `json:"name"`
			ParameterValue struct {
				Value string `json:"value"`
			} `json:"parameterValue"`
		} `json:"queryParameters"`
	}
	json.Unmarshal(body, &q)
	for _, param := range q.QueryParameters {
		if param.Name == "name" {
			def, found = p.graphs[m[1]+"."+param.ParameterValue.Value]
		}
	}
	return project, def, found, true
}

// answerGraph answers the view's query: one row holding def, or none.
func answerGraph(w http.ResponseWriter, project, def string, found bool) {
	rows := []map[string]any{}
	if found {
		rows = append(rows, map[string]any{"f": []map[string]any{{"v": def}}})
	}
	writeJSON(w, map[string]any{
		"kind":         "bigquery#queryResponse",
		"jobReference": map[string]any{"projectId": project, "jobId": "property_graphs_lookup", "location": "US"},
		"jobComplete":  true,
		"totalRows":    strconv.Itoa(len(rows)),
		"rows":         rows,
		"schema": map[string]any{"fields": []map[string]any{
			{"name": "property_graph_metadata_json", "type": "STRING"},
		}},
		"totalBytesProcessed": "65536",
		"totalBytesBilled":    "10485760",
	})
}
