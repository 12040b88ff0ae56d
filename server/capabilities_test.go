package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServesWhatItDeclares: for each way the server can be built, the
// capabilities it declares at initialize are exactly the features it
// serves: every request a capability gates gets -32601 (method not found)
// when that capability is not declared, and is served (any answer but
// -32601) when it is. The server has no prompts, so prompts/list is never
// answered with an empty list that looks like support (the MCP
// conformance suite's prompts check).
func TestServesWhatItDeclares(t *testing.T) {
	shop, _ := shopSchema(t, "")
	// Requests that reach a handler without calling BigQuery: a template
	// that matches no URI, a prompt reference completion ignores, a tool
	// that does not exist.
	requests := map[string]any{
		"tools/list":               map[string]any{},
		"tools/call":               map[string]any{"name": "no_such_tool", "arguments": map[string]any{}},
		"prompts/list":             map[string]any{},
		"prompts/get":              map[string]any{"name": "no_such_prompt"},
		"resources/list":           map[string]any{},
		"resources/templates/list": map[string]any{},
		"resources/read":           map[string]any{"uri": "nothing://here"},
		"resources/subscribe":      map[string]any{"uri": "bigquery://p/sales_eu/orders"},
		"resources/unsubscribe":    map[string]any{"uri": "bigquery://p/sales_eu/orders"},
		"completion/complete": map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "x"},
			"argument": map[string]any{"name": "a", "value": ""}},
		"logging/setLevel": map[string]any{"level": "info"},
	}
	for _, tc := range []struct {
		name string
		svc  Services
		cfg  Config
		want []string // the declared capabilities
	}{
		{"no services, apps off", Services{}, Config{Apps: AppsOff}, []string{"logging", "tools"}},
		{"no services, apps", Services{}, Config{}, []string{"extensions", "logging", "resources", "tools"}},
		{"schema, apps off", Services{Schema: shop}, Config{Apps: AppsOff}, []string{"completions", "logging", "resources", "tools"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Logger = discardLogger()
			c := newRawClient(t, New(tc.svc, tc.cfg), func(t mcp.Transport) mcp.Transport { return t })
			c.send(float64(1), "initialize", map[string]any{
				"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"},
			})
			r, ok := c.next(5 * time.Second).(*jsonrpc.Response)
			if !ok || r.Error != nil {
				t.Fatalf("initialize: %#v", r)
			}
			var init struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			}
			if err := json.Unmarshal(r.Result, &init); err != nil {
				t.Fatal(err)
			}
			declared := map[string]bool{}
			for _, k := range tc.want {
				declared[k] = true
			}
			for k := range init.Capabilities {
				if !declared[k] {
					t.Errorf("declares %s: %s", k, init.Capabilities[k])
				}
			}
			for _, k := range tc.want {
				if _, ok := init.Capabilities[k]; !ok {
					t.Errorf("does not declare %s", k)
				}
			}
			var resources struct {
				Subscribe bool `json:"subscribe"`
			}
			if b, ok := init.Capabilities["resources"]; ok {
				if err := json.Unmarshal(b, &resources); err != nil {
					t.Fatal(err)
				}
			}
			c.send(nil, "notifications/initialized", map[string]any{})
			gate := map[string]bool{
				"tools/list": declared["tools"], "tools/call": declared["tools"],
				"prompts/list": declared["prompts"], "prompts/get": declared["prompts"],
				"resources/list": declared["resources"], "resources/templates/list": declared["resources"],
				"resources/read": declared["resources"], "completion/complete": declared["completions"],
				"resources/subscribe": resources.Subscribe, "resources/unsubscribe": resources.Subscribe,
				"logging/setLevel": declared["logging"],
			}
			id := 2
			for method, params := range requests {
				id++
				c.send(float64(id), method, params)
				r, ok := c.next(5 * time.Second).(*jsonrpc.Response)
				if !ok {
					t.Fatalf("%s: no response", method)
				}
				var code int64
				if e, ok := r.Error.(*jsonrpc.Error); ok {
					code = e.Code
				} else if r.Error != nil {
					t.Fatalf("%s: uncoded error %v", method, r.Error)
				}
				if notFound := code == jsonrpc.CodeMethodNotFound; notFound == gate[method] {
					t.Errorf("%s: declared %v, answered %v (code %d)", method, gate[method], r.Error, code)
				}
			}
		})
	}
}
