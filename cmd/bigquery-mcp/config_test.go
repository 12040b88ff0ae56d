package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseArgsFlagsAndEnv(t *testing.T) {
	s, err := parseArgs([]string{"--project", "flag-proj", "--max-rows", "50"}, env(map[string]string{
		"BIGQUERY_PROJECT":       "env-proj",
		"BIGQUERY_LOCATION":      "EU",
		"BIGQUERY_ALLOW_WRITES":  "true",
		"BIGQUERY_QUERY_TIMEOUT": "30s",
		"PORT":                   "9999",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if s.command != "stdio" || s.Project != "flag-proj" || s.Location != "EU" || !s.AllowWrites ||
		s.QueryTimeout != 30*time.Second || s.MaxRows != 50 || s.addr != ":9999" || s.Auth != auth.ADC {
		t.Errorf("settings = %+v", s)
	}
}

func TestParseArgsCommandPosition(t *testing.T) {
	for _, args := range [][]string{{"http", "--addr", ":1"}, {"--addr", ":1", "http"}} {
		s, err := parseArgs(args, env(nil))
		if err != nil || s.command != "http" || s.addr != ":1" {
			t.Errorf("%v: %+v, %v", args, s, err)
		}
	}
}

func TestEndpointDefaultsToNoAuth(t *testing.T) {
	s, err := parseArgs([]string{"--endpoint", "http://localhost:9050"}, env(nil))
	if err != nil || s.Auth != auth.None {
		t.Errorf("auth = %v, %v", s.Auth, err)
	}
	s, err = parseArgs([]string{"--endpoint", "https://private.example", "--auth", "adc"}, env(nil))
	if err != nil || s.Auth != auth.ADC {
		t.Errorf("explicit auth = %v, %v", s.Auth, err)
	}
}

func TestParseArgsRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"serve"}, nil},
		{[]string{"--max-rows", "many"}, nil},
		{nil, map[string]string{"BIGQUERY_MAX_ROWS": "many"}},
		{nil, map[string]string{"BIGQUERY_ALLOW_WRITES": "maybe"}},
		{[]string{"stdio", "extra"}, nil},
	} {
		if _, err := parseArgs(tc.args, env(tc.env)); err == nil {
			t.Errorf("%v %v: want an error", tc.args, tc.env)
		}
	}
}

func TestHelpListsEveryFlagWithItsEnvVar(t *testing.T) {
	// Help that was asked for goes to stdout and is not an error, however
	// it is asked for.
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"http", "--help"}, {"--project", "p", "-help"}} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, env(nil), strings.NewReader(""), &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, want := range []string{"BIGQUERY_PROJECT", "BIGQUERY_ENDPOINT", "BIGQUERY_ALLOW_WRITES", "BIGQUERY_MAX_BYTES_BILLED", "bigquery-mcp http"} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%v: help lacks %s", args, want)
			}
		}
		if stderr.Len() != 0 {
			t.Errorf("%v: stderr = %q", args, stderr.String())
		}
	}
}

func TestHelpShowsEffectiveDefaults(t *testing.T) {
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"help"}, env(map[string]string{
		"BIGQUERY_PROJECT":      "env-proj",
		"BIGQUERY_ALLOW_WRITES": "true",
		"BIGQUERY_MAX_ROWS":     "77",
		"BIGQUERY_ENDPOINT":     "http://localhost:9050",
		"PORT":                  "9999",
	}), strings.NewReader(""), &stdout, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	help := stdout.String()
	for _, want := range []string{
		`env BIGQUERY_PROJECT; default "env-proj" (from BIGQUERY_PROJECT)`,
		`env BIGQUERY_ALLOW_WRITES; default true (from BIGQUERY_ALLOW_WRITES)`,
		`env BIGQUERY_MAX_ROWS; default 77 (from BIGQUERY_MAX_ROWS)`,
		`env BIGQUERY_ADDR; default ":9999" (from $PORT)`,
		`env BIGQUERY_AUTH; default "none"`,          // because the endpoint is set
		`env BIGQUERY_DEFAULT_MAX_ROWS; default 100`, // built in
		`env BIGQUERY_QUERY_TIMEOUT; default 1m0s`,
	} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if strings.Contains(help, "BIGQUERY_HELP") || strings.Contains(help, "BIGQUERY_VERSION") {
		t.Error("--help and --version have no environment variable")
	}
}

func TestVersionAsCommandAndFlag(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var stdout bytes.Buffer
		if err := run(context.Background(), args, env(nil), strings.NewReader(""), &stdout, &bytes.Buffer{}); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if stdout.String() != versionString()+"\n" || !strings.HasPrefix(stdout.String(), "bigquery-mcp ") {
			t.Errorf("%v: %q", args, stdout.String())
		}
	}
}

// A release build names its version and commit (the ldflags of the
// Makefile, .goreleaser.yaml, .ko.yaml and the Dockerfile).
func TestVersionNamesTheCommit(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v1.2.3", "0123456789abcdef0123456789abcdef01234567"
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, env(nil), strings.NewReader(""), &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if want := "bigquery-mcp v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567)\n"; stdout.String() != want {
		t.Errorf("--version = %q, want %q", stdout.String(), want)
	}
}

func TestUsageErrorsAreMarked(t *testing.T) {
	err := run(context.Background(), []string{"--no-such-flag"}, env(nil), strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	var u usageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "no-such-flag") {
		t.Errorf("err = %v", err)
	}
}

func TestAllowedOriginsList(t *testing.T) {
	s, err := parseArgs([]string{"--allowed-origins", " https://a.example, https://b.example ,"}, env(nil))
	if err != nil || len(s.allowedOrigins) != 2 || s.allowedOrigins[0] != "https://a.example" || s.allowedOrigins[1] != "https://b.example" {
		t.Errorf("origins = %q, %v", s.allowedOrigins, err)
	}
}

func TestInvalidConfigFailsAtStartup(t *testing.T) {
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"--max-rows", "0", "--endpoint", "http://127.0.0.1:1"}, env(nil), strings.NewReader(""), &stdout, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "max-rows") {
		t.Errorf("err = %v", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout must stay clean for the protocol: %q", stdout.String())
	}
}

func TestStdioServesUntilStdinCloses(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"--endpoint", "http://127.0.0.1:1", "--project", "p"}, env(nil), inR, outW, &stderr)
		outW.Close()
	}()
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	if !strings.Contains(line, `"protocolVersion":"2025-06-18"`) {
		t.Errorf("stdout = %q", line)
	}
	inW.Close() // the host going away ends the server cleanly
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if !strings.HasPrefix(l, `{"time"`) || !strings.Contains(l, `"severity":`) {
			t.Errorf("stderr line is not a structured log: %q", l)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestToolsetsAndReadOnlyFromFlagsAndEnv(t *testing.T) {
	all := []server.Toolset{server.ToolsetSchema, server.ToolsetQuery, server.ToolsetJobs, server.ToolsetWrite, server.ToolsetExport, server.ToolsetSemantic}
	for _, c := range []struct {
		args     []string
		env      map[string]string
		want     []server.Toolset
		readOnly bool
	}{
		{nil, nil, server.DefaultToolsets(), false},
		{nil, map[string]string{"BIGQUERY_TOOLSETS": "query", "BIGQUERY_READ_ONLY": "true"}, []server.Toolset{server.ToolsetQuery}, true},
		{[]string{"--toolsets", "schema,jobs"}, map[string]string{"BIGQUERY_TOOLSETS": "query"}, []server.Toolset{server.ToolsetSchema, server.ToolsetJobs}, false},
		{[]string{"--toolsets", "all"}, nil, []server.Toolset{server.ToolsetSchema, server.ToolsetQuery, server.ToolsetJobs, server.ToolsetExport, server.ToolsetSemantic}, false},
		{[]string{"--toolsets", "query,semantic", "--semantic-manifest", "m.json"}, nil, []server.Toolset{server.ToolsetQuery, server.ToolsetSemantic}, false},
		{[]string{"--toolsets", "query"}, map[string]string{"BIGQUERY_SEMANTIC_MANIFEST": "m.json"}, []server.Toolset{server.ToolsetQuery}, false},
		{[]string{"--toolsets", "all", "--allow-writes"}, nil, all, false},
		{[]string{"--toolsets=all"}, map[string]string{"BIGQUERY_ALLOW_WRITES": "true"}, all, false},
	} {
		s, err := parseArgs(c.args, env(c.env))
		if err != nil || !slices.Equal(s.Toolsets, c.want) || s.ReadOnly != c.readOnly {
			t.Errorf("%v %v: toolsets %v, read-only %v, %v; want %v, %v", c.args, c.env, s.Toolsets, s.ReadOnly, err, c.want, c.readOnly)
		}
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"--toolsets", "schema,admin"}, nil},
		{nil, map[string]string{"BIGQUERY_TOOLSETS": "tables"}},
		{[]string{"--toolsets", ""}, nil},
	} {
		_, err := parseArgs(c.args, env(c.env))
		if err == nil || !strings.Contains(err.Error(), "valid: schema, query, jobs, write, export, semantic, or all") {
			t.Errorf("%v %v: %v, want an error listing the valid toolsets", c.args, c.env, err)
		}
	}
}

func TestSemanticToolsetNeedsAManifest(t *testing.T) {
	for _, args := range [][]string{{"--toolsets", "query,semantic"}, {"--toolsets", " Semantic "}} {
		_, err := parseArgs(args, env(nil))
		if err == nil || !strings.Contains(err.Error(), "semantic needs a semantic manifest") {
			t.Errorf("%v: %v, want an error saying the manifest is needed", args, err)
		}
	}
	// The default and all name it only implicitly: no manifest, no error.
	for _, args := range [][]string{nil, {"--toolsets", "all"}} {
		if _, err := parseArgs(args, env(nil)); err != nil {
			t.Errorf("%v: %v, want no error", args, err)
		}
	}
}

func TestToolsetContradictionsFailAtStartup(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--read-only", "--allow-writes"}, nil, "read-only and allow-writes contradict"},
		{[]string{"--read-only"}, map[string]string{"BIGQUERY_ALLOW_WRITES": "true"}, "read-only and allow-writes contradict"},
		{[]string{"--toolsets", "query,write"}, nil, "write (insert_rows) needs allow-writes"},
	} {
		var stdout bytes.Buffer
		args := append([]string{"--endpoint", "http://127.0.0.1:1"}, c.args...)
		err := run(context.Background(), args, env(c.env), strings.NewReader(""), &stdout, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: %v, want an error containing %q", c.args, c.env, err, c.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("stdout must stay clean for the protocol: %q", stdout.String())
		}
	}
}

// Over http, --export-gcs makes Cloud Storage export_results' default
// destination (an instance's disk is its own); on stdio files stay the
// default, and without a bucket nothing changes.
func TestExportDefaultDestination(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"http", "--export-gcs", "gs://bkt/exports"}, nil, "gcs"},
		{[]string{"http"}, map[string]string{"BIGQUERY_EXPORT_GCS": "gs://bkt"}, "gcs"},
		{[]string{"--export-gcs", "gs://bkt/exports"}, nil, ""},
		{[]string{"http"}, nil, ""},
	} {
		s, err := parseArgs(c.args, env(c.env))
		if err != nil || s.Export.Destination != c.want {
			t.Errorf("%v %v: destination %q, %v; want %q", c.args, c.env, s.Export.Destination, err, c.want)
		}
	}
}
