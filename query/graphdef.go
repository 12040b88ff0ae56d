package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A property graph's definition as INFORMATION_SCHEMA.PROPERTY_GRAPHS
// gives it (property_graph_metadata_json), read strictly: the allowlist
// must account for every table the graph is built on, so whatever the
// reader cannot place is an error, never skipped. The shape, as BigQuery
// returns it:
//
//	{"propertyGraphReference": {"projectId", "datasetId", "propertyGraphId"},
//	 "nodeTables": [{"name": "Person",
//	                 "dataSourceTable": {"projectId", "datasetId", "tableId"},
//	                 "keyColumns": […], "labelAndProperties": […]}, …],
//	 "edgeTables": [{"name": …, "dataSourceTable": {…}, "keyColumns": […],
//	                 "sourceNodeReference": {"nodeTable": "Person", "nodeTableColumns": […], "edgeTableColumns": […]},
//	                 "destinationNodeReference": {…}, "labelAndProperties": […]}, …],
//	 "creationTime", "lastModifiedTime", "etag"}
//
// Keys are compared exactly (encoding/json would fold their case into a
// struct's fields). A key this reader does not know that may name a table
// or a source (its name holds "table" or "source") is an unknown shape, and
// an error; other keys (labels, properties, times) are not about tables.

// graphElementKeys are the keys of an element that this reader reads or
// knows to name no table.
var graphElementKeys = []string{"name", "kind", "dataSourceTable", "keyColumns", "labelAndProperties", "sourceNodeReference", "destinationNodeReference"}

// graphElementTables returns the tables a graph's definition is built on:
// each node and edge element's dataSourceTable, every one fully
// qualified. A definition without node tables, an element without its
// table's three IDs, an edge whose source or destination is not one of the
// graph's node elements, or a key of unknown shape is an error.
func graphElementTables(def string) ([]tableRef, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(def), &top); err != nil || top == nil {
		return nil, errors.New("property_graph_metadata_json is not a JSON object")
	}
	for k := range top {
		if k != "nodeTables" && k != "edgeTables" && mayNameTable(k) {
			return nil, fmt.Errorf("its definition has a key %q this server does not know", k)
		}
	}
	nodes, err := graphElements(top, "nodeTables")
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, errors.New("its definition lists no node tables")
	}
	edges, err := graphElements(top, "edgeTables")
	if err != nil {
		return nil, err
	}
	var out []tableRef
	names := map[string]bool{}
	for i, n := range nodes {
		t, name, err := graphElement(n, false, nil)
		if err != nil {
			return nil, fmt.Errorf("node table %d: %w", i+1, err)
		}
		names[name] = true
		out = append(out, t)
	}
	for i, e := range edges {
		t, _, err := graphElement(e, true, names)
		if err != nil {
			return nil, fmt.Errorf("edge table %d: %w", i+1, err)
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b tableRef) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(out), nil
}

// mayNameTable reports whether a key this reader does not know could name
// a table or a data source.
func mayNameTable(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "table") || strings.Contains(k, "source")
}

// graphElements decodes the list under key ("" or absent: none).
func graphElements(top map[string]json.RawMessage, key string) ([]map[string]json.RawMessage, error) {
	raw, ok := top[key]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s is not a list of objects", key)
	}
	return list, nil
}

// graphElement reads one element: its table and name. An edge's source and
// destination must each reference a node element of names; a node has
// neither.
func graphElement(el map[string]json.RawMessage, edge bool, names map[string]bool) (tableRef, string, error) {
	if el == nil {
		return tableRef{}, "", errors.New("not an object")
	}
	for k := range el {
		if !slices.Contains(graphElementKeys, k) && mayNameTable(k) {
			return tableRef{}, "", fmt.Errorf("a key %q this server does not know", k)
		}
	}
	name, err := jsonString(el, "name")
	if err != nil {
		return tableRef{}, "", err
	}
	src, ok := el["dataSourceTable"]
	if !ok {
		return tableRef{}, "", fmt.Errorf("%s has no dataSourceTable", name)
	}
	var ids map[string]json.RawMessage
	if err := json.Unmarshal(src, &ids); err != nil || len(ids) != 3 {
		return tableRef{}, "", fmt.Errorf("%s's dataSourceTable is not exactly projectId, datasetId and tableId", name)
	}
	var t tableRef
	for _, f := range []struct {
		key string
		to  *string
	}{{"projectId", &t.project}, {"datasetId", &t.dataset}, {"tableId", &t.table}} {
		if *f.to, err = jsonString(ids, f.key); err != nil {
			return tableRef{}, "", fmt.Errorf("%s's dataSourceTable: %w", name, err)
		}
	}
	for _, end := range []string{"sourceNodeReference", "destinationNodeReference"} {
		raw, has := el[end]
		switch {
		case has && !edge:
			return tableRef{}, "", fmt.Errorf("node %s has a %s", name, end)
		case !has && edge:
			return tableRef{}, "", fmt.Errorf("edge %s has no %s", name, end)
		case !has:
			continue
		}
		var ref map[string]json.RawMessage
		if err := json.Unmarshal(raw, &ref); err != nil || ref == nil {
			return tableRef{}, "", fmt.Errorf("%s's %s is not an object", name, end)
		}
		node, err := jsonString(ref, "nodeTable")
		if err != nil {
			return tableRef{}, "", fmt.Errorf("%s's %s: %w", name, end, err)
		}
		if !names[node] {
			return tableRef{}, "", fmt.Errorf("%s's %s names %q, none of the graph's node tables", name, end, node)
		}
	}
	return t, name, nil
}

// jsonString is the non-empty string under key.
func jsonString(m map[string]json.RawMessage, key string) (string, error) {
	var s string
	if err := json.Unmarshal(m[key], &s); err != nil || s == "" {
		return "", fmt.Errorf("no %s", key)
	}
	return s, nil
}
