package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
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
	}), &bytes.Buffer{})
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
		s, err := parseArgs(args, env(nil), &bytes.Buffer{})
		if err != nil || s.command != "http" || s.addr != ":1" {
			t.Errorf("%v: %+v, %v", args, s, err)
		}
	}
}

func TestEndpointDefaultsToNoAuth(t *testing.T) {
	s, err := parseArgs([]string{"--endpoint", "http://localhost:9050"}, env(nil), &bytes.Buffer{})
	if err != nil || s.Auth != auth.None {
		t.Errorf("auth = %v, %v", s.Auth, err)
	}
	s, err = parseArgs([]string{"--endpoint", "https://private.example", "--auth", "adc"}, env(nil), &bytes.Buffer{})
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
		if _, err := parseArgs(tc.args, env(tc.env), &bytes.Buffer{}); err == nil {
			t.Errorf("%v %v: want an error", tc.args, tc.env)
		}
	}
}

func TestHelpListsEveryFlagWithItsEnvVar(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"--help"}, env(nil), strings.NewReader(""), &bytes.Buffer{}, &stderr)
	if err == nil || !strings.Contains(err.Error(), "help") {
		t.Fatalf("--help: %v", err)
	}
	for _, want := range []string{"BIGQUERY_PROJECT", "BIGQUERY_ENDPOINT", "BIGQUERY_ALLOW_WRITES", "BIGQUERY_MAX_BYTES_BILLED", "bigquery-mcp http"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("--help lacks %s", want)
		}
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
