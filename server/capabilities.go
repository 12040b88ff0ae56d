package server

// What the server declares at initialize (and in server/discover) and what
// it serves are one list: a client that calls a method whose capability is
// not declared gets -32601 (method not found), as the specification says
// of a capability the server did not advertise, rather than an empty
// answer that looks like support (go-sdk v1.8.0 answers prompts/list,
// resources/list and tools/list whether or not anything is registered).

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/ui"
)

// served says which features a server built by New serves.
type served struct {
	tools       bool // any tool is listed
	resources   bool // table schemas (a schema service) or the app resource
	completions bool // names for the table schema template (a schema service)
	apps        Apps
}

// capabilities are the server's declared capabilities: logging (always:
// logging/setLevel and client log messages), tools, resources (never
// subscriptions) and completions as far as they are served, no prompts
// (the server has none), and, unless apps are off, the MCP Apps extension.
// Every field is set here, so the SDK adds none of its own.
func capabilities(s served) *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
	if s.tools {
		c.Tools = &mcp.ToolCapabilities{ListChanged: true}
	}
	if s.resources {
		c.Resources = &mcp.ResourceCapabilities{ListChanged: true}
	}
	if s.completions {
		c.Completions = &mcp.CompletionCapabilities{}
	}
	if s.apps != AppsOff {
		c.AddExtension(ui.ExtensionID, map[string]any{"mimeTypes": []string{ui.MIMEType}})
	}
	return c
}

// gatedMethods maps each client request that a server capability gates to
// whether c declares that capability.
func gatedMethods(c *mcp.ServerCapabilities) map[string]bool {
	subscribe := c.Resources != nil && c.Resources.Subscribe
	return map[string]bool{
		"tools/list":               c.Tools != nil,
		"tools/call":               c.Tools != nil,
		"prompts/list":             c.Prompts != nil,
		"prompts/get":              c.Prompts != nil,
		"resources/list":           c.Resources != nil,
		"resources/templates/list": c.Resources != nil,
		"resources/read":           c.Resources != nil,
		"resources/subscribe":      subscribe,
		"resources/unsubscribe":    subscribe,
		"completion/complete":      c.Completions != nil,
		"logging/setLevel":         c.Logging != nil,
	}
}

// serveDeclared is receiving middleware that answers a request gated by a
// capability c does not declare with -32601, before any handler runs.
func serveDeclared(c *mcp.ServerCapabilities) mcp.Middleware {
	gated := gatedMethods(c)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if declared, ok := gated[method]; ok && !declared {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
					Message: method + ": not served (the server does not declare this capability)"}
			}
			return next(ctx, method, req)
		}
	}
}
