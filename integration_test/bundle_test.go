package integration_test

// The MCP Bundle as Claude Desktop sees it: the official mcpb CLI (pinned in
// clients/, with Node 22) validates packaging/mcpb/manifest.json, packs the
// built binary with it, and unpacks the bundle; the test then launches the
// unpacked server the way a host does (the manifest's command and env, with
// ${__dirname} and the user's settings substituted, blank optional settings
// left as their literal placeholder as Claude Desktop leaves them) and uses it
// against the emulator.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

const bundleManifest = "../packaging/mcpb/manifest.json"

// requireMCPB is requireClients plus the mcpb CLI.
func requireMCPB(t *testing.T) *clients {
	t.Helper()
	c := requireClients(t)
	if !isFile(filepath.Join(c.dir, "node_modules", ".bin", "mcpb")) {
		msg := "@anthropic-ai/mcpb is not installed in " + c.dir + " (install it with `make clients`)"
		if os.Getenv(requireClientsEnv) == "1" {
			t.Fatalf("%s=1 but %s", requireClientsEnv, msg)
		}
		t.Skip(msg)
	}
	return c
}

func mcpbRun(t *testing.T, c *clients, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := c.command(ctx, append([]string{"mcpb"}, args...)...).CombinedOutput()
	return string(out), err
}

// The manifest passes the official validator, which refuses a broken one.
func TestBundleManifestValidates(t *testing.T) {
	t.Parallel() // its own server binary and client processes; the emulator only read
	c := requireMCPB(t)
	path, err := filepath.Abs(bundleManifest)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := mcpbRun(t, c, "validate", path); err != nil || !strings.Contains(out, "passes") {
		t.Fatalf("mcpb validate %s: %v\n%s", path, err, out)
	}
	var m map[string]any
	data, _ := os.ReadFile(path)
	json.Unmarshal(data, &m)
	m["user_config"].(map[string]any)["project"].(map[string]any)["type"] = "text"
	bad := filepath.Join(t.TempDir(), "manifest.json")
	data, _ = json.Marshal(m)
	os.WriteFile(bad, data, 0o644)
	if out, err := mcpbRun(t, c, "validate", bad); err == nil {
		t.Errorf("mcpb validate accepted a user_config of type text:\n%s", out)
	}
}

var userConfigRef = regexp.MustCompile(`\$\{user_config\.([a-z_]+)\}`)

// Packed, unpacked and launched like a host would, the bundle serves the
// tools its manifest names and reads the emulator's datasets.
func TestBundlePackedUnpackedServes(t *testing.T) {
	t.Parallel() // its own server binary and client processes; the emulator only read
	c := requireMCPB(t)
	stage := t.TempDir()
	data, err := os.ReadFile(bundleManifest)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(stage, "server"), 0o755)
	os.WriteFile(filepath.Join(stage, "manifest.json"), data, 0o644)
	bin, err := os.ReadFile(serverBin)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stage, "server", "bigquery-mcp"), bin, 0o755)
	license, _ := os.ReadFile("../LICENSE")
	os.WriteFile(filepath.Join(stage, "LICENSE"), license, 0o644)

	packed := filepath.Join(t.TempDir(), "bigquery-mcp.mcpb")
	if out, err := mcpbRun(t, c, "pack", stage, packed); err != nil {
		t.Fatalf("mcpb pack: %v\n%s", err, out)
	}
	installed := filepath.Join(t.TempDir(), "installed")
	if out, err := mcpbRun(t, c, "unpack", packed, installed); err != nil {
		t.Fatalf("mcpb unpack: %v\n%s", err, out)
	}

	var m struct {
		Server struct {
			MCPConfig struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"mcp_config"`
		} `json:"server"`
		Tools []struct{ Name string } `json:"tools"`
	}
	data, err = os.ReadFile(filepath.Join(installed, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	// What a person fills in: the project; the rest left blank or at its
	// default.
	settings := map[string]string{"project": emulator.Project, "read_only": "true", "max_bytes_billed": "10737418240"}
	substitute := func(s string) string {
		s = strings.ReplaceAll(s, "${__dirname}", installed)
		return userConfigRef.ReplaceAllStringFunc(s, func(ref string) string {
			if v, ok := settings[userConfigRef.FindStringSubmatch(ref)[1]]; ok {
				return v
			}
			return ref // blank: Claude Desktop passes the placeholder itself
		})
	}
	cmd := exec.Command(substitute(m.Server.MCPConfig.Command))
	for _, a := range m.Server.MCPConfig.Args {
		cmd.Args = append(cmd.Args, substitute(a))
	}
	cmd.Env = []string{"HOME=" + t.TempDir(), "BIGQUERY_ENDPOINT=" + emu.URL} // the emulator instead of Google
	for k, v := range m.Server.MCPConfig.Env {
		cmd.Env = append(cmd.Env, k+"="+substitute(v))
	}
	cmd.Stderr = &logBuffer{t: t}
	if st, err := os.Stat(cmd.Path); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("the unpacked entry point %s is not executable: %v %v", cmd.Path, st, err)
	}
	cs := clientSession(t, &mcp.CommandTransport{Command: cmd}, "2025-06-18")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed, advertised []string
	for _, tool := range list.Tools {
		listed = append(listed, tool.Name)
	}
	for _, tool := range m.Tools {
		advertised = append(advertised, tool.Name)
	}
	slices.Sort(listed)
	slices.Sort(advertised)
	if !slices.Equal(listed, advertised) {
		t.Errorf("the bundle lists %v, its manifest advertises %v", listed, advertised)
	}
	datasets := ok[schema.ListDatasetsOutput](t, cs, "list_datasets", nil)
	if ids := datasetIDs(datasets); !ids["shop"] {
		t.Errorf("list_datasets through the bundle: %v", ids)
	}
}
