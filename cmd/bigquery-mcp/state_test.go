package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// TestStateFlags: --state and its companions come from flags or
// BIGQUERY_STATE*, memory is the default, and --help never prints a
// password the URL holds.
func TestStateFlags(t *testing.T) {
	s, err := parseArgs([]string{"http", "--state-fail-open"}, env(map[string]string{
		"BIGQUERY_STATE":               "rediss://:pw-in-env@10.0.0.3:6378",
		"BIGQUERY_STATE_PASSWORD_FILE": "/secrets/redis",
		"BIGQUERY_STATE_CA_FILE":       "/secrets/ca.pem",
		"BIGQUERY_STATE_PREFIX":        "team-a:",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Governance.State != "rediss://:pw-in-env@10.0.0.3:6378" || s.Governance.StatePasswordFile != "/secrets/redis" || s.Governance.StateCAFile != "/secrets/ca.pem" || s.Governance.StatePrefix != "team-a:" || !s.Governance.StateFailOpen {
		t.Errorf("state settings = %q %q %q %q %v", s.Governance.State, s.Governance.StatePasswordFile, s.Governance.StateCAFile, s.Governance.StatePrefix, s.Governance.StateFailOpen)
	}
	d, err := parseArgs(nil, env(nil))
	if err != nil || d.Governance.State != "memory" || d.Governance.StatePrefix != governance.DefaultRedisPrefix || d.Governance.StateFailOpen {
		t.Errorf("defaults = %q %q %v, %v", d.Governance.State, d.Governance.StatePrefix, d.Governance.StateFailOpen, err)
	}

	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"help"}, env(map[string]string{"BIGQUERY_STATE": "redis://:pw-in-env@h:6379"}), strings.NewReader(""), &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	help := stdout.String()
	if strings.Contains(help, "pw-in-env") || !strings.Contains(help, "env BIGQUERY_STATE; set (from BIGQUERY_STATE)") {
		t.Errorf("help prints the state URL's password or not that it is set:\n%s", help)
	}
	for _, want := range []string{"--state-fail-open", "--state-password-file", "--state-ca-file", `env BIGQUERY_STATE_PREFIX; default "bigquery-mcp:"`, "--retry-state-attempts"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestReadyzReportsState: /readyz's body says where the state lives, and
// why the instance is not ready when it is not.
func TestReadyzReportsState(t *testing.T) {
	ready, why := true, ""
	h := &httpServer{limits: testLimits(), log: slog.New(slog.DiscardHandler),
		readiness: func() (string, string) { return why, "redis redis://10.0.0.3:6379 (shared)" }}
	handler, err := h.handler(mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil), func() bool { return ready })
	if err != nil {
		t.Fatal(err)
	}
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get(); code != http.StatusOK || !strings.Contains(body, "state: redis redis://10.0.0.3:6379 (shared)") {
		t.Errorf("/readyz = %d %q", code, body)
	}
	ready, why = false, "shared state store unavailable: budgets fail closed"
	if code, body := get(); code != http.StatusServiceUnavailable || !strings.Contains(body, "not ready: shared state store unavailable") || !strings.Contains(body, "state: redis") {
		t.Errorf("/readyz = %d %q", code, body)
	}
}
