package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// buildOnState builds the server against fake BigQuery with its
// governance state in the Redis at url.
func buildOnState(t *testing.T, url string, failOpen bool) (*Backend, error) {
	t.Helper()
	fake := newFakeBigQuery(t)
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth = "p", fake.URL, auth.None
	cfg.Governance.MaxBytesPerDay = 1 << 30
	cfg.Governance.State, cfg.Governance.StateFailOpen, cfg.Governance.StatePrefix = url, failOpen, "servertest:"
	cfg.Resilience.Breaker = resilience.Breaker{Failures: 1, Open: time.Hour, Successes: 1}
	b, err := Build(context.Background(), cfg)
	if err == nil {
		t.Cleanup(func() { b.Close() })
	}
	return b, err
}

// TestStateRedis: --state redis:// shares the ledger between two
// backends (usage on one shows what the other holds), health and /readyz
// report the store without its password, and a Redis that stops answering
// makes budgets fail closed (and the instance unready) or, with
// --state-fail-open, leaves the instance ready.
func TestStateRedis(t *testing.T) {
	rs := redistest.Start(t)
	ctx := context.Background()
	a, err := buildOnState(t, rs.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := buildOnState(t, rs.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.shared.Reserve(ctx, "", 1<<20); err != nil {
		t.Fatal(err)
	}
	u, err := b.query.Usage(ctx, query.UsageInput{})
	if err != nil || u.Reserved != 1<<20 {
		t.Fatalf("usage on the other instance = %+v, %v; want the 1 MiB held on the first", u, err)
	}
	h := a.Health(ctx)
	if h.State.Backend != "redis" || !h.State.Reachable || h.State.URL != rs.URL() || !h.Ready {
		t.Errorf("health state = %+v, ready %v", h.State, h.Ready)
	}
	if _, st := a.Readiness(); !strings.Contains(st, "redis") || !strings.Contains(st, "shared") {
		t.Errorf("readiness state = %q", st)
	}
	open, err := buildOnState(t, rs.URL(), true)
	if err != nil {
		t.Fatal(err)
	}

	rs.Stop()
	if _, err := a.shared.Reserve(ctx, "", 1); err == nil || !strings.Contains(err.Error(), "Redis") {
		t.Errorf("Reserve with Redis down = %v, want UNAVAILABLE naming Redis", err)
	}
	if a.Ready() {
		t.Error("ready with Redis down and budgets failing closed")
	}
	if why, st := a.Readiness(); !strings.Contains(why, "state store") || !strings.Contains(st, "unavailable") {
		t.Errorf("readiness = %q, %q; want the store named", why, st)
	}
	if h := a.Health(ctx); h.State.Reachable || h.State.Error == "" || h.Ready {
		t.Errorf("health with Redis down = %+v, ready %v", h.State, h.Ready)
	}
	if _, err := open.shared.Reserve(ctx, "", 1); err != nil {
		t.Errorf("Reserve with Redis down and fail-open = %v", err)
	}
	if !open.Ready() {
		t.Error("a fail-open instance is unready with Redis down")
	}

	// Startup: a Redis that does not answer stops a fail-closed server,
	// and the error names it without its password.
	_, err = buildOnState(t, "redis://:hunter2@"+rs.Addr(), false)
	if err == nil || !strings.Contains(err.Error(), "--state") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Build with Redis down = %v; want a startup error naming --state, no password", err)
	}
	if _, err := buildOnState(t, rs.URL(), true); err != nil {
		t.Errorf("Build with Redis down and fail-open = %v", err)
	}
}

// TestStateMemoryDefault: without --state the state is this instance's
// memory, always reachable, and a bad --state is a startup error.
func TestStateMemoryDefault(t *testing.T) {
	b, _ := buildFake(t)
	if h := b.Health(context.Background()); h.State.Backend != "memory" || !h.State.Reachable {
		t.Errorf("health state = %+v", h.State)
	}
	cfg := Defaults()
	cfg.Governance.State = "postgres://x"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "state") {
		t.Errorf("Validate(--state postgres://) = %v", err)
	}
}

// TestStateFailOpenRecovers: the wiring closes the store's breaker when
// the store's own probe finds it back. A fail-open instance whose breaker
// opened (for an hour) during an outage answers usage as soon as Redis
// answers again, with the query it ran meanwhile charged, and no longer
// reports the store unavailable.
func TestStateFailOpenRecovers(t *testing.T) {
	rs := redistest.Start(t)
	ctx := context.Background()
	b, err := buildOnState(t, rs.URL(), true)
	if err != nil {
		t.Fatal(err)
	}
	rs.StopKeepingData()
	id, err := b.shared.Reserve(ctx, "", 1<<20)
	if err != nil {
		t.Fatalf("Reserve with Redis down and fail-open = %v", err)
	}
	b.shared.Settle(ctx, id, governance.Usage{Jobs: 1, BytesBilled: 1 << 20})
	if _, st := b.Readiness(); !strings.Contains(st, "unavailable") {
		t.Fatalf("readiness state during the outage = %q; want the store unavailable", st)
	}
	if _, err := b.query.Usage(ctx, query.UsageInput{}); err == nil {
		t.Fatal("usage answered during the outage")
	}
	rs.StartAgain()
	u, err := b.query.Usage(ctx, query.UsageInput{})
	if err != nil || u.Today.BytesBilled != 1<<20 || u.Today.Jobs != 1 {
		t.Fatalf("first usage after Redis returned = %+v, %v; want the 1 MiB job run during the outage", u, err)
	}
	if s := b.Executor.BreakerStates()[resilience.StateScope]; s != resilience.Closed {
		t.Errorf("state breaker after Redis returned = %s, want closed", s)
	}
	if _, st := b.Readiness(); strings.Contains(st, "unavailable") {
		t.Errorf("readiness state after Redis returned = %q", st)
	}
}
