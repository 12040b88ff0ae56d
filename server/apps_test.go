package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/ui"
)

// appSession connects a client with caps (nil: none) under protocol
// (empty: the SDK's default) to New(opts) in memory, and returns it with
// the log of every message it read.
func appSession(t *testing.T, opts Config, caps *mcp.ClientCapabilities, protocol string) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(Services{}, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var wire bytes.Buffer
	c := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	var so *mcp.ClientSessionOptions
	if protocol != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}
	cs, err := c.Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: &wire}, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, &wire
}

// appCaps are the capabilities of a client that renders apps, with the
// given MIME types.
func appCaps(mimeTypes ...string) *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	c.AddExtension(ui.ExtensionID, map[string]any{"mimeTypes": mimeTypes})
	return c
}

// wireTools returns each tool of the last tools/list answer in the log,
// as the bytes the server sent.
func wireTools(t *testing.T, wire *bytes.Buffer) map[string]json.RawMessage {
	t.Helper()
	var last map[string]json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(wire.Bytes()))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil || msg.Result.Tools == nil {
			continue
		}
		last = map[string]json.RawMessage{}
		for _, raw := range msg.Result.Tools {
			var tool struct{ Name string }
			if err := json.Unmarshal(raw, &tool); err != nil {
				t.Fatal(err)
			}
			last[tool.Name] = raw
		}
	}
	if last == nil {
		t.Fatalf("no tools/list answer in the log:\n%s", wire)
	}
	return last
}

// snapshot returns a tool's snapshot, the bytes TestToolSnapshots keeps.
func snapshot(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("__toolsnaps__", name+".snap"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// indented is raw as the snapshots write it.
func indented(t *testing.T, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// TestToolsListWithoutAppsIsUnchanged: a client that does not declare the
// extension, or declares it without the app's MIME type, gets every tool
// exactly as its snapshot says (the bytes on the wire), under the
// sessionful and the sessionless protocol.
func TestToolsListWithoutAppsIsUnchanged(t *testing.T) {
	for _, protocol := range []string{"2025-06-18", "2025-11-25", ""} {
		for name, caps := range map[string]*mcp.ClientCapabilities{
			"no capabilities":   nil,
			"other extension":   {Extensions: map[string]any{"io.example/other": map[string]any{}}},
			"other MIME type":   appCaps("text/html"),
			"no MIME types":     {Extensions: map[string]any{ui.ExtensionID: map[string]any{}}},
			"malformed setting": {Extensions: map[string]any{ui.ExtensionID: map[string]any{"mimeTypes": "text/html;profile=mcp-app"}}},
		} {
			cs, wire := appSession(t, Config{}, caps, protocol)
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			tools := wireTools(t, wire)
			if len(tools) < 10 {
				t.Fatalf("%s, %q: %d tools", name, protocol, len(tools))
			}
			for tool, raw := range tools {
				if got, want := indented(t, raw), snapshot(t, tool); !bytes.Equal(got, want) {
					t.Errorf("%s, protocol %q: %s differs from its snapshot:\n%s", name, protocol, tool, got)
				}
			}
			res, err := cs.ListResources(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(res.Resources, func(r *mcp.Resource) bool { return r.URI == ui.URI }) {
				t.Errorf("%s, %q: resources/list shows the app to a client that cannot render it", name, protocol)
			}
		}
	}
}

// TestAppToolsAreLinkedForAppClients: a client that declares the extension
// with the app's MIME type sees the five result tools linked to the app,
// and nothing else changed: each tool without its _meta is its snapshot.
func TestAppToolsAreLinkedForAppClients(t *testing.T) {
	for _, protocol := range []string{"2025-06-18", ""} {
		cs, wire := appSession(t, Config{}, appCaps("text/html", ui.MIMEType), protocol)
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		var linked []string
		for name, raw := range wireTools(t, wire) {
			var tool map[string]json.RawMessage
			if err := json.Unmarshal(raw, &tool); err != nil {
				t.Fatal(err)
			}
			if meta, ok := tool["_meta"]; ok {
				var m struct {
					UI struct {
						ResourceURI string `json:"resourceUri"`
					} `json:"ui"`
					Flat string `json:"ui/resourceUri"`
				}
				if err := json.Unmarshal(meta, &m); err != nil {
					t.Fatal(err)
				}
				if m.UI.ResourceURI != ui.URI || m.Flat != ui.URI {
					t.Errorf("%s: _meta %s, want ui.resourceUri and ui/resourceUri %s", name, meta, ui.URI)
				}
				linked = append(linked, name)
			}
			// The rest is the tool as every client sees it.
			var plain mcp.Tool
			if err := json.Unmarshal(raw, &plain); err != nil {
				t.Fatal(err)
			}
			plain.Meta = nil
			if got, want := indented(t, mustJSON(t, &plain)), snapshot(t, name); !bytes.Equal(bytes.TrimSpace(normalize(t, got)), bytes.TrimSpace(normalize(t, want))) {
				t.Errorf("%s: apart from _meta, differs from its snapshot:\n%s", name, got)
			}
		}
		slices.Sort(linked)
		want := listedAppTools()
		if !slices.Equal(linked, want) {
			t.Errorf("protocol %q: linked tools %v, want %v", protocol, linked, want)
		}
		// Asking again gives the same answer: the server's tools were not
		// changed in place.
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if n := len(wireTools(t, wire)); n == 0 {
			t.Fatal("no tools the second time")
		}
	}
	// A plain client after an app client still sees the snapshots.
	cs, wire := appSession(t, Config{}, nil, "")
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if raw := wireTools(t, wire)["execute_sql"]; !bytes.Equal(indented(t, raw), snapshot(t, "execute_sql")) {
		t.Errorf("execute_sql changed for a plain client after an app client listed tools:\n%s", raw)
	}
}

// normalize re-encodes JSON with sorted keys, for comparing documents
// whose key order is not the point.
func normalize(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAppResource: the server advertises the extension, and serves the
// app as a ui:// resource with the app's MIME type, an empty CSP, within
// its size bound; an app client sees it in resources/list.
func TestAppResource(t *testing.T) {
	cs, _ := appSession(t, Config{}, appCaps(ui.MIMEType), "2025-06-18")
	ext, ok := cs.InitializeResult().Capabilities.Extensions[ui.ExtensionID]
	if !ok {
		t.Fatalf("capabilities.extensions lacks %s: %+v", ui.ExtensionID, cs.InitializeResult().Capabilities)
	}
	if b := mustJSON(t, ext); !strings.Contains(string(b), ui.MIMEType) {
		t.Errorf("extension settings %s, want the app's MIME type", b)
	}
	if cs.InitializeResult().Capabilities.Logging == nil {
		t.Error("logging is no longer advertised")
	}
	list, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == ui.URI && r.MIMEType == ui.MIMEType }) {
		t.Errorf("resources/list for an app client lacks the app: %s", mustJSON(t, list))
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: ui.URI})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("%d contents", len(res.Contents))
	}
	c := res.Contents[0]
	if c.URI != ui.URI || c.MIMEType != ui.MIMEType || c.Text != ui.HTML() {
		t.Errorf("read %s: uri %q, mime %q, %d bytes", ui.URI, c.URI, c.MIMEType, len(c.Text))
	}
	if len(c.Text) > ui.MaxBytes || !strings.HasPrefix(strings.ToLower(c.Text), "<!doctype html>") {
		t.Errorf("the app is %d bytes (at most %d) and starts %.40q", len(c.Text), ui.MaxBytes, c.Text)
	}
	if b := mustJSON(t, c.Meta); string(b) != `{"ui":{"csp":{},"prefersBorder":true}}` {
		t.Errorf("resource _meta %s", b)
	}
	// A client that does not render apps may still read it.
	plain, _ := appSession(t, Config{}, nil, "")
	if _, err := plain.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: ui.URI}); err != nil {
		t.Errorf("a plain client reading the app: %v", err)
	}
}

// TestEveryAppToolHasAView: docs/tools.md says what each linked tool's
// view shows.
func TestEveryAppToolHasAView(t *testing.T) {
	for _, name := range appTools {
		if appViews[name] == "" {
			t.Errorf("%s links to the app but appViews does not say what it shows", name)
		}
	}
	if len(appViews) != len(appTools) {
		t.Errorf("appViews names %d tools, appTools %d", len(appViews), len(appTools))
	}
}

// TestAppsAlwaysAndOff: --apps always links the tools and lists the app
// for every client (stateless HTTP cannot tell 2025-protocol clients
// apart); --apps off advertises nothing and serves no app, and every tool
// is its snapshot even for a client that declares the extension.
func TestAppsAlwaysAndOff(t *testing.T) {
	cs, wire := appSession(t, Config{Apps: AppsAlways}, nil, "2025-06-18")
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var linked []string
	for name, raw := range wireTools(t, wire) {
		if strings.Contains(string(raw), `"resourceUri":"`+ui.URI+`"`) {
			linked = append(linked, name)
		}
	}
	slices.Sort(linked)
	if want := listedAppTools(); !slices.Equal(linked, want) {
		t.Errorf("always: a plain client sees %v linked, want %v", linked, want)
	}
	list, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == ui.URI }) {
		t.Error("always: resources/list lacks the app")
	}

	cs, wire = appSession(t, Config{Apps: AppsOff}, appCaps(ui.MIMEType), "2025-06-18")
	if _, ok := cs.InitializeResult().Capabilities.Extensions[ui.ExtensionID]; ok {
		t.Error("off: the extension is still advertised")
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for tool, raw := range wireTools(t, wire) {
		if got, want := indented(t, raw), snapshot(t, tool); !bytes.Equal(got, want) {
			t.Errorf("off: %s differs from its snapshot:\n%s", tool, got)
		}
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: ui.URI}); err == nil {
		t.Error("off: the app can still be read")
	}

	for in, want := range map[string]Apps{"": AppsAuto, "auto": AppsAuto, "always": AppsAlways, "off": AppsOff} {
		if got, err := ParseApps(in); err != nil || got != want {
			t.Errorf("ParseApps(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseApps("on"); err == nil {
		t.Error("ParseApps(on) took an unknown mode")
	}
}

// listedAppTools are the app's tools a server without a semantic manifest
// lists (query_metrics is listed only with one), sorted.
func listedAppTools() []string {
	out := slices.DeleteFunc(slices.Clone(appTools), func(n string) bool { return n == "query_metrics" })
	slices.Sort(out)
	return out
}
