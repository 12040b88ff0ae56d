package main

// The MCP Bundle's manifest (packaging/mcpb/manifest.json) against the
// binary it launches: every setting a person fills in reaches a real
// BIGQUERY_* variable with the meaning its form says, blank optional
// settings mean unset, and the tools it advertises are the ones that
// configuration lists. `mcpb validate` (integration_test) checks the
// manifest's schema; this checks what the schema cannot.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const manifestPath = "../../packaging/mcpb/manifest.json"

type bundleManifest struct {
	Version string `json:"version"`
	Server  struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command           string            `json:"command"`
			Args              []string          `json:"args"`
			Env               map[string]string `json:"env"`
			PlatformOverrides map[string]struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"platform_overrides"`
		} `json:"mcp_config"`
	} `json:"server"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	UserConfig map[string]struct {
		Type     string `json:"type"`
		Default  any    `json:"default"`
		Required bool   `json:"required"`
	} `json:"user_config"`
}

func readManifest(t *testing.T) *bundleManifest {
	t.Helper()
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	var m bundleManifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", manifestPath, err)
	}
	return &m
}

// readVariables returns every environment variable the binary reads.
func readVariables(t *testing.T) map[string]bool {
	t.Helper()
	read := map[string]bool{}
	if _, err := parseArgs(nil, func(k string) string { read[k] = true; return "" }); err != nil {
		t.Fatal(err)
	}
	return read
}

var placeholder = regexp.MustCompile(`^\$\{user_config\.([a-z_]+)\}$`)

// Every variable the manifest sets is one the binary reads, set from
// exactly one user setting, and every user setting is used.
func TestBundleManifestSetsRealVariables(t *testing.T) {
	m := readManifest(t)
	real := readVariables(t)
	used := map[string]string{}
	check := func(where string, env map[string]string) {
		for name, value := range env {
			if !real[name] {
				t.Errorf("%s: %s is not a variable bigquery-mcp reads (see cmd/bigquery-mcp/config.go)", where, name)
			}
			sub := placeholder.FindStringSubmatch(value)
			if sub == nil {
				t.Errorf("%s: %s=%q: want ${user_config.KEY}", where, name, value)
				continue
			}
			if _, ok := m.UserConfig[sub[1]]; !ok {
				t.Errorf("%s: %s uses user_config.%s, which the manifest does not declare", where, name, sub[1])
			}
			if prev, ok := used[sub[1]]; ok && prev != name {
				t.Errorf("user_config.%s sets both %s and %s", sub[1], prev, name)
			}
			used[sub[1]] = name
		}
	}
	check("mcp_config.env", m.Server.MCPConfig.Env)
	for platform, o := range m.Server.MCPConfig.PlatformOverrides {
		check("platform_overrides."+platform+".env", o.Env)
	}
	for key := range m.UserConfig {
		if _, ok := used[key]; !ok {
			t.Errorf("user_config.%s reaches no variable", key)
		}
	}
	// The settings the bundle promises in its form.
	for _, key := range []string{"project", "location", "datasets", "read_only", "max_bytes_billed", "credentials_file", "semantic_manifest"} {
		if _, ok := m.UserConfig[key]; !ok {
			t.Errorf("user_config lacks %s", key)
		}
	}
}

// Values as Claude Desktop passes them (strings of the form's types) give
// the settings their titles promise; blank optional settings, which reach
// the process as the literal placeholder, give the binary's defaults.
func TestBundleUserConfigReachesTheSettings(t *testing.T) {
	m := readManifest(t)
	credentials := filepath.Join(t.TempDir(), "key.json")
	manifest := filepath.Join(t.TempDir(), "semantic_manifest.json")
	filled := map[string]string{
		"semantic_manifest": manifest,
		"project":           "my-project",
		"location":          "europe-west1",
		"datasets":          "sales,shared.reference_*",
		"read_only":         "true",
		"max_bytes_billed":  "1073741824",
		"credentials_file":  credentials,
	}
	environ := map[string]string{}
	for name, value := range m.Server.MCPConfig.Env {
		key := placeholder.FindStringSubmatch(value)[1]
		v, ok := filled[key]
		if !ok {
			t.Fatalf("no test value for user_config.%s: add one here", key)
		}
		environ[name] = v
	}
	s, err := parseArgs(m.Server.MCPConfig.Args, env(environ))
	if err != nil {
		t.Fatalf("parseArgs(%q, %v): %v", m.Server.MCPConfig.Args, environ, err)
	}
	if s.command != "stdio" {
		t.Errorf("the bundle runs %q, want stdio", s.command)
	}
	if s.Project != "my-project" || s.Location != "europe-west1" || s.Governance.Datasets != "sales,shared.reference_*" ||
		!s.ReadOnly || s.MaxBytesBilled != 1<<30 || s.CredentialsFile != credentials || s.SemanticManifest != manifest {
		t.Errorf("settings = project %q location %q datasets %q read-only %v max-bytes-billed %d credentials %q semantic manifest %q",
			s.Project, s.Location, s.Governance.Datasets, s.ReadOnly, s.MaxBytesBilled, s.CredentialsFile, s.SemanticManifest)
	}
	if s.AllowWrites {
		t.Error("the bundle must never allow writes")
	}

	// Every optional setting left blank.
	blank := map[string]string{}
	for name, value := range m.Server.MCPConfig.Env {
		blank[name] = value
	}
	blank["BIGQUERY_PROJECT"] = "my-project" // required
	s, err = parseArgs(m.Server.MCPConfig.Args, env(blank))
	if err != nil {
		t.Fatalf("blank optional settings: %v", err)
	}
	d, err := parseArgs(nil, env(map[string]string{"BIGQUERY_PROJECT": "my-project"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Location != d.Location || s.Governance.Datasets != d.Governance.Datasets || s.ReadOnly != d.ReadOnly ||
		s.MaxBytesBilled != d.MaxBytesBilled || s.CredentialsFile != d.CredentialsFile || s.SemanticManifest != d.SemanticManifest {
		t.Errorf("blank settings gave %+v, want the defaults %+v", s.Config, d.Config)
	}
}

// The form's defaults are the binary's, so a person who changes nothing gets
// what the README describes (read-only is the one deliberate exception:
// the bundle is for people who only read).
func TestBundleDefaultsMatchTheBinary(t *testing.T) {
	m := readManifest(t)
	d, err := parseArgs(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.UserConfig["max_bytes_billed"].Default; got != float64(d.MaxBytesBilled) {
		t.Errorf("max_bytes_billed default %v, want the binary's %d", got, d.MaxBytesBilled)
	}
	if got := m.UserConfig["read_only"].Default; got != true {
		t.Errorf("read_only default %v, want true", got)
	}
	if !m.UserConfig["project"].Required {
		t.Error("project must be required: user credentials name no project")
	}
	for key, c := range m.UserConfig {
		if key != "project" && c.Required {
			t.Errorf("user_config.%s is required: only project should be", key)
		}
	}
}

// The command is the entry point inside the bundle, with .exe on Windows.
func TestBundleCommandIsTheEntryPoint(t *testing.T) {
	m := readManifest(t)
	srv := m.Server
	if srv.Type != "binary" || srv.EntryPoint != "server/bigquery-mcp" {
		t.Errorf("server type %q entry_point %q", srv.Type, srv.EntryPoint)
	}
	if want := "${__dirname}/" + srv.EntryPoint; srv.MCPConfig.Command != want {
		t.Errorf("command %q, want %q", srv.MCPConfig.Command, want)
	}
	if got, want := srv.MCPConfig.PlatformOverrides["win32"].Command, "${__dirname}/"+srv.EntryPoint+".exe"; got != want {
		t.Errorf("win32 command %q, want %q", got, want)
	}
}

// The tools the manifest advertises are exactly those the bundle's default
// configuration (read-only) lists: the binary is asked over stdio.
func TestBundleAdvertisesTheToolsItLists(t *testing.T) {
	m := readManifest(t)
	environ := map[string]string{}
	for name, value := range m.Server.MCPConfig.Env {
		environ[name] = value // every optional setting blank
	}
	environ["BIGQUERY_PROJECT"] = "p"
	environ["BIGQUERY_READ_ONLY"] = strconv.FormatBool(m.UserConfig["read_only"].Default.(bool))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		args := append(slices.Clone(m.Server.MCPConfig.Args), "--endpoint", "http://127.0.0.1:1")
		done <- run(context.Background(), args, env(environ), inR, outW, &syncBuffer{})
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-ai","version":"1"}}}`)
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	var listed, advertised []string
	for _, tool := range resp.Result.Tools {
		listed = append(listed, tool.Name)
	}
	for _, tool := range m.Tools {
		advertised = append(advertised, tool.Name)
	}
	slices.Sort(listed)
	slices.Sort(advertised)
	if !slices.Equal(listed, advertised) {
		t.Errorf("manifest tools %v, but the bundle's configuration lists %v", advertised, listed)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A variable an MCP Bundle host left as its literal placeholder is unset.
func TestUnfilledPlaceholderIsUnset(t *testing.T) {
	s, err := parseArgs(nil, env(map[string]string{
		"BIGQUERY_LOCATION":         "${user_config.location}",
		"BIGQUERY_MAX_BYTES_BILLED": "${user_config.max_bytes_billed}",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Location != "" || s.MaxBytesBilled != 10<<30 {
		t.Errorf("location %q max bytes %d", s.Location, s.MaxBytesBilled)
	}
	// Anything else is a value, even with a dollar sign in it.
	s, err = parseArgs(nil, env(map[string]string{"BIGQUERY_DATASETS": "${HOME}"}))
	if err != nil || !strings.Contains(s.Governance.Datasets, "${HOME}") {
		t.Errorf("datasets %q, %v", s.Governance.Datasets, err)
	}
}

// The container image built by ko runs `http` when given no command (ko
// ships kodata/ and sets KO_DATA_PATH); a command on the command line still
// wins, and outside such an image the default stays stdio.
func TestKoImageDefaultsToHTTP(t *testing.T) {
	image := env(map[string]string{"KO_DATA_PATH": "kodata"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "http"},
		{[]string{"--project", "p"}, "http"},
		{[]string{"stdio"}, "stdio"},
		{[]string{"--project", "p", "stdio"}, "stdio"},
		{[]string{"--version"}, "version"},
	} {
		s, err := parseArgs(c.args, image)
		if err != nil || s.command != c.want {
			t.Errorf("in the image, %q: command %v, %v; want %s", c.args, s, err, c.want)
		}
	}
	if s, err := parseArgs(nil, env(nil)); err != nil || s.command != "stdio" {
		t.Errorf("outside the image: %v, %v", s, err)
	}
	if s, err := parseArgs(nil, env(map[string]string{"KO_DATA_PATH": t.TempDir()})); err != nil || s.command != "stdio" {
		t.Errorf("KO_DATA_PATH without a default-command: %v, %v", s, err)
	}
}

// The MCP registry entry (packaging/registry/server.json) configures the
// image with variables the binary reads, and its defaults and choices are
// values the binary accepts.
func TestRegistryEntrySetsRealVariables(t *testing.T) {
	data, err := os.ReadFile("../../packaging/registry/server.json")
	if err != nil {
		t.Fatal(err)
	}
	var server struct {
		Packages []struct {
			RegistryType         string `json:"registryType"`
			EnvironmentVariables []struct {
				Name    string   `json:"name"`
				Default string   `json:"default"`
				Choices []string `json:"choices"`
			} `json:"environmentVariables"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &server); err != nil {
		t.Fatal(err)
	}
	real := readVariables(t)
	seen := 0
	for _, p := range server.Packages {
		for _, v := range p.EnvironmentVariables {
			seen++
			if !real[v.Name] {
				t.Errorf("%s package: %s is not a variable bigquery-mcp reads", p.RegistryType, v.Name)
			}
			for _, value := range append([]string{v.Default}, v.Choices...) {
				if value == "" {
					continue
				}
				if _, err := parseArgs([]string{"http"}, env(map[string]string{v.Name: value})); err != nil {
					t.Errorf("%s=%s: %v", v.Name, value, err)
				}
			}
		}
	}
	if seen == 0 {
		t.Error("the registry entry sets no variables")
	}
}
