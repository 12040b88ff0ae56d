package server

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// stateCheckTimeout bounds the startup check and health's ping of the
// shared state store.
const stateCheckTimeout = 3 * time.Second

// buildState makes the governance state --state names: memory (this
// process), or Redis shared by every instance that names it. shared is the
// Redis state, for health and Close; nil for memory.
//
// A Redis that does not answer at startup stops a server whose budgets
// fail closed, where a person reads why; with --state-fail-open the
// server starts and says so, since it would serve unchecked anyway.
func buildState(ctx context.Context, cfg Config, runner *resilience.Executor, tel *observability.Telemetry, log *slog.Logger) (governance.State, *governance.Redis, error) {
	gov := cfg.Governance
	if !governance.IsRedisURL(gov.State) {
		budget := governance.NewBudget(gov.Limits).WithUSDPerDay(cfg.LedgerPricing(cfg.Location))
		jobs := governance.NewJobStore(governance.JobStoreConfig{OnEvict: func() {
			if tel != nil {
				tel.JobRecordEvicted(context.Background())
			}
		}})
		return governance.NewMemory(budget, jobs), nil, nil
	}
	client, err := governance.NewRedisClient(gov)
	if err != nil {
		return nil, nil, err
	}
	st := governance.NewRedis(governance.RedisConfig{
		Client: client, StatePrefix: gov.StatePrefix, Limits: gov.Limits, StateFailOpen: gov.StateFailOpen,
		USD: cfg.LedgerPricing(cfg.Location),
		Do: func(ctx context.Context, fn func(context.Context) error) error {
			return runner.Do(ctx, resilience.State, resilience.StateScope, fn)
		},
		// The store's own probe found it back and wrote what this
		// instance kept: budgets are checked again now, not when the
		// breaker would have let a probe through (--breaker-open).
		Recovered: func() { runner.CloseBreaker(resilience.StateScope) },
		Hooks:     stateHooks(tel),
		Logger:    log,
	})
	pctx, cancel := context.WithTimeout(ctx, stateCheckTimeout)
	defer cancel()
	if err := st.Ping(pctx); err != nil {
		if !gov.StateFailOpen {
			st.Close()
			return nil, nil, fmt.Errorf("--state %s: %w (budgets fail closed; --state-fail-open starts anyway)", governance.RedactURL(gov.State), err)
		}
		log.Warn("shared state store not answering at startup: serving without budget checks until it does; jobs are charged when it answers (--state-fail-open)",
			"state", governance.RedactURL(gov.State), "error", bqerr.Redact(err.Error()))
	}
	return st, st, nil
}

// stateHooks reports the store's steps and fail-open passes to telemetry.
func stateHooks(tel *observability.Telemetry) governance.RedisHooks {
	if tel == nil {
		return governance.RedisHooks{}
	}
	return governance.RedisHooks{
		Step: func(ctx context.Context, step string, d time.Duration, err error) {
			tel.StateStep(ctx, step, d, errorInfo(err))
		},
		FailedOpen: tel.StateFailedOpen,
	}
}

// StateHealth is where budgets and job records live, and whether that
// store answers.
type StateHealth struct {
	// Backend is "memory" (this instance only) or "redis" (shared).
	Backend string `json:"backend"`
	// URL is the Redis URL without its password.
	URL       string `json:"url,omitempty"`
	Reachable bool   `json:"reachable"`
	LatencyMs int64  `json:"latencyMs"`
	// FailOpen: queries run without a budget check while the store is
	// down (their jobs are charged when it answers).
	FailOpen bool `json:"failOpen,omitempty"`
	// PendingWrites are settlements, releases and job records waiting
	// for the store to answer again.
	PendingWrites int    `json:"pendingWrites,omitempty"`
	Error         string `json:"error,omitempty"`
}

// stateHealth pings the shared store (not retried, like BigQuery's check).
func (b *Backend) stateHealth(ctx context.Context) StateHealth {
	if b.shared == nil {
		return StateHealth{Backend: "memory", Reachable: true}
	}
	h := StateHealth{Backend: "redis", URL: b.stateURL, FailOpen: b.stateFailOpen, PendingWrites: b.shared.Pending()}
	ctx, cancel := context.WithTimeout(ctx, stateCheckTimeout)
	defer cancel()
	start := time.Now()
	err := b.shared.Ping(ctx)
	h.LatencyMs = time.Since(start).Milliseconds()
	if err != nil {
		h.Error = bqerr.Redact(err.Error())
	} else {
		h.Reachable = true
	}
	return h
}

// stateReady reports whether the state store lets the instance serve:
// always for memory; for Redis, unless budgets fail closed and the store
// is down (its breaker open, or a step failed and no probe has found it
// back since): every query would be refused.
func (b *Backend) stateReady(breakers map[string]resilience.BreakerState) bool {
	return b.shared == nil || b.stateFailOpen || !b.stateDown(breakers)
}

// stateDown reports whether the shared store is down for this instance.
func (b *Backend) stateDown(breakers map[string]resilience.BreakerState) bool {
	return b.shared != nil && (breakers[resilience.StateScope] == resilience.Open || b.shared.Down())
}

// Readiness is /readyz's detail: why the instance is not ready ("" when
// it is) and where its state lives ("memory", or "redis URL (shared)" with
// "unavailable" when its breaker is open), without the password.
func (b *Backend) Readiness() (notReady, state string) {
	state = "memory (this instance only)"
	if b.shared != nil {
		state = "redis " + b.stateURL + " (shared)"
		if b.stateDown(b.Executor.BreakerStates()) {
			state += ", unavailable"
			if b.stateFailOpen {
				state += ": budgets not checked until it answers (--state-fail-open)"
			}
		}
	}
	return b.NotReadyReason(), state
}
