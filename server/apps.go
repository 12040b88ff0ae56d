package server

// MCP Apps (the io.modelcontextprotocol/ui extension): the server
// advertises the extension and serves the app (package ui) as a ui://
// resource. Only a client that declares the extension, with the app's MIME
// type, sees tools linked to the app (_meta.ui.resourceUri) and the app in
// resources/list; every other client gets the same tools/list and
// resources/list as a server without apps, byte for byte.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/ui"
)

// appTools are the tools whose results the app shows; appViews says how
// (docs/tools.md). appCalls are the tools it calls for what it shows
// beside a result (the cost card's spend), not linked to it: their result
// types are generated too.
var (
	appTools = []string{"execute_sql", "get_query_results", "preview_table", "get_table_schema", "dry_run_sql", "query_metrics"}
	appCalls = []string{"usage"}
	appViews = map[string]string{
		"execute_sql":       "the rows as a sortable table with types, job, bytes, cost and cache, a line or bar chart when a date/time or text column comes with numbers, Load more when the result was cut",
		"get_query_results": "the same table as execute_sql",
		"preview_table":     "the same table as execute_sql, Load more through preview_table",
		"get_table_schema":  "the columns as a tree (nested fields collapsible), modes, descriptions, partitioning, clustering, size and freshness",
		"dry_run_sql":       "a cost card: bytes, USD, tables read, whether execute_sql would run it and whether it would ask for confirmation",
		"query_metrics":     "the same table as execute_sql, with a line chart over metric_time when it is grouped by it; its dry_run as dry_run_sql's cost card",
	}
)

// Apps (--apps) says which clients see tools linked to the app.
type Apps string

const (
	// AppsAuto links them for a client that declares the extension with
	// the app's MIME type (the default).
	AppsAuto Apps = "auto"
	// AppsAlways links them for every client: stateless HTTP cannot tell
	// clients of the 2025 protocols apart (each request is a new session
	// that never saw the client's initialize), so there only this shows
	// the app to hosts that render it. Hosts that do not ignore _meta.ui.
	AppsAlways Apps = "always"
	// AppsOff neither advertises the extension nor serves the app.
	AppsOff Apps = "off"
)

// ParseApps reads --apps; empty means auto.
func ParseApps(s string) (Apps, error) {
	switch a := Apps(s); a {
	case "":
		return AppsAuto, nil
	case AppsAuto, AppsAlways, AppsOff:
		return a, nil
	}
	return "", fmt.Errorf("--apps %q: want auto, always or off", s)
}

// addApp registers the app resource and the receiving middleware that
// links tools to it for clients that render apps (every client, always).
func addApp(s *mcp.Server, apps Apps) {
	if apps == AppsOff {
		return
	}
	s.AddResource(&mcp.Resource{
		Name:        "bigquery-app",
		Title:       "BigQuery results view",
		Description: "The MCP App that shows query results, table schemas and dry-run costs.",
		MIMEType:    ui.MIMEType,
		URI:         ui.URI,
		Meta:        appResourceMeta(),
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: ui.URI, MIMEType: ui.MIMEType, Text: ui.HTML(), Meta: appResourceMeta(),
		}}}, nil
	})
	s.AddReceivingMiddleware(linkApp(apps == AppsAlways))
}

// appResourceMeta is the resource's _meta.ui: an empty CSP (the app loads
// nothing from anywhere) and a border around it.
func appResourceMeta() mcp.Meta {
	return mcp.Meta{"ui": map[string]any{"csp": map[string]any{}, "prefersBorder": true}}
}

// linkApp adds _meta.ui.resourceUri to the app's tools in tools/list, and
// lets the app's resource be listed, for a client that renders apps (for
// every client when always). It copies what it changes: the listed tools
// are the server's own.
func linkApp(always bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			switch r := res.(type) {
			case *mcp.ListToolsResult:
				if always || rendersApps(req) {
					r.Tools = linkTools(r.Tools)
				}
			case *mcp.ListResourcesResult:
				if !always && !rendersApps(req) {
					r.Resources = slices.DeleteFunc(slices.Clone(r.Resources), func(x *mcp.Resource) bool { return x.URI == ui.URI })
				}
			}
			return res, err
		}
	}
}

// linkTools returns tools with the app's tools copied and linked to it:
// _meta.ui.resourceUri, and the older flat key ui/resourceUri that hosts
// from before the nested form still read.
func linkTools(tools []*mcp.Tool) []*mcp.Tool {
	out := make([]*mcp.Tool, len(tools))
	for i, t := range tools {
		out[i] = t
		if !slices.Contains(appTools, t.Name) {
			continue
		}
		c := *t
		c.Meta = maps.Clone(t.Meta)
		if c.Meta == nil {
			c.Meta = mcp.Meta{}
		}
		c.Meta["ui"] = map[string]any{"resourceUri": ui.URI}
		c.Meta["ui/resourceUri"] = ui.URI
		out[i] = &c
	}
	return out
}

// rendersApps reports whether the client that sent req declared the MCP
// Apps extension with the app's MIME type: in initialize, or for the
// sessionless protocol in the request's own _meta (the SDK reads both).
func rendersApps(req mcp.Request) bool {
	var caps *mcp.ClientCapabilities
	switch r := req.(type) {
	case *mcp.ListToolsRequest:
		caps = r.ClientCapabilities()
	case *mcp.ListResourcesRequest:
		caps = r.ClientCapabilities()
	}
	if caps == nil {
		return false
	}
	ext, ok := caps.Extensions[ui.ExtensionID]
	if !ok {
		return false
	}
	// In memory the settings are the client's own value; off the wire, a
	// map. Either way they have the JSON shape of McpUiClientCapabilities.
	b, err := json.Marshal(ext)
	if err != nil {
		return false
	}
	var settings struct {
		MIMETypes []string `json:"mimeTypes"`
	}
	if json.Unmarshal(b, &settings) != nil {
		return false
	}
	return slices.Contains(settings.MIMETypes, ui.MIMEType)
}
