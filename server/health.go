package server

import (
	"context"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// HealthReporter produces the health report.
type HealthReporter interface {
	Health(ctx context.Context) *HealthReport
}

// HealthInput is the health tool's (empty) input.
type HealthInput struct{}

// HealthReport is what the health tool and /readyz report.
type HealthReport struct {
	// Ready is true when credentials are usable and no breaker is open.
	Ready    bool           `json:"ready"`
	BigQuery BigQueryHealth `json:"bigquery"`
	Auth     AuthHealth     `json:"auth"`
	// Breakers maps each breaker scope the server has used (a project it
	// has called, or "auth" for token fetches) to its circuit breaker
	// state: closed, open or half-open.
	Breakers map[string]resilience.BreakerState `json:"breakers"`
	Cache    CacheHealth                        `json:"cache"`
	// State is where budgets and job records live (--state).
	State StateHealth `json:"state"`
	// Allowlist is present when --datasets is set.
	Allowlist     *AllowlistHealth `json:"allowlist,omitempty"`
	Version       string           `json:"version"`
	UptimeSeconds int64            `json:"uptimeSeconds"`
}

// BigQueryHealth is the result of one cheap call to BigQuery.
type BigQueryHealth struct {
	Reachable bool         `json:"reachable"`
	LatencyMs int64        `json:"latencyMs"`
	Project   string       `json:"project,omitempty"`
	Error     *bqerr.Error `json:"error,omitempty"`
}

// AuthHealth says who the server acts as, never with what secret.
type AuthHealth struct {
	Mode      auth.Mode `json:"mode"`
	Principal string    `json:"principal,omitempty"`
	// Via is the credential that impersonates Principal, when one does.
	Via         string `json:"via,omitempty"`
	TokenExpiry string `json:"tokenExpiry,omitempty"`
	Error       string `json:"error,omitempty"`
}

// AllowlistHealth says whether the dataset allowlist is the only boundary:
// the allowlist is defence in depth, and only IAM makes it a guarantee.
type AllowlistHealth struct {
	Datasets string `json:"datasets"`
	// CredentialListsOutside is true when the credential BigQuery sees can
	// list datasets of the default project outside the allowlist; absent
	// when that could not be checked (Error says why).
	CredentialListsOutside *bool  `json:"credentialListsOutside,omitempty"`
	Error                  string `json:"error,omitempty"`
	Hint                   string `json:"hint,omitempty"`
}

// exposureTimeout bounds the allowlist check: health answers fast, with or
// without it.
const exposureTimeout = 3 * time.Second

// CacheHealth describes the metadata cache.
type CacheHealth struct {
	Entries int `json:"entries"`
	// HitRate is hits / lookups since start, when telemetry counts them.
	HitRate float64 `json:"hitRate"`
	Stale   int64   `json:"staleServed"`
}

// Health checks BigQuery with one dataset listing (not retried: health
// reports what is, it does not heal) and gathers the rest from the layers.
func (b *Backend) Health(ctx context.Context) *HealthReport {
	r := &HealthReport{
		Auth:          AuthHealth{Mode: b.Identity.Mode, Principal: b.Identity.Principal, Via: b.Identity.Via, Error: b.Identity.Error},
		Breakers:      b.Executor.BreakerStates(),
		Cache:         CacheHealth{Entries: b.Cache.Len()},
		Version:       b.version,
		UptimeSeconds: int64(time.Since(b.started).Seconds()),
	}
	if b.Identity.Mode == auth.User {
		// Each call runs as its caller: name the one asking.
		r.Auth.Principal = auth.CallerFrom(ctx).Principal
	}
	if exp := b.Identity.TokenExpiry(); !exp.IsZero() {
		r.Auth.TokenExpiry = exp.UTC().Format(time.RFC3339)
	}
	if b.telemetry != nil {
		r.Cache.HitRate, r.Cache.Stale = b.telemetry.CacheStats()
	}
	r.BigQuery.Project = b.project
	if b.project != "" {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		start := time.Now()
		_, err := b.rest.Datasets.List(b.project).MaxResults(1).Context(ctx).Do()
		r.BigQuery.LatencyMs = time.Since(start).Milliseconds()
		if err != nil {
			r.BigQuery.Error = bqerr.From(err)
		} else {
			r.BigQuery.Reachable = true
		}
	}
	r.Allowlist = b.allowlistHealth(ctx)
	r.State = b.stateHealth(ctx)
	r.Ready = b.Ready()
	return r
}

// allowlistHealth checks, when an allowlist is set, whether the credential
// can list datasets of the default project outside it. A failed or slow
// check is reported, never a failed health call. Dataset names stay out of
// the report: health is agent-facing, and the allowlist hides them.
func (b *Backend) allowlistHealth(ctx context.Context) *AllowlistHealth {
	if b.schema == nil || !b.schema.Datasets().Enabled() {
		return nil
	}
	h := &AllowlistHealth{Datasets: b.schema.Datasets().String()}
	if b.project == "" {
		h.Error = "no default project to check"
		return h
	}
	ctx, cancel := context.WithTimeout(ctx, b.exposureTimeout)
	defer cancel()
	outside, err := b.schema.ListsOutsideAllowlist(ctx, b.project)
	if err != nil {
		h.Error = "could not check: " + bqerr.From(err).Message
		return h
	}
	h.CredentialListsOutside = &outside
	if outside {
		h.Hint = "This credential can list datasets outside the allowlist, so --datasets is the only boundary. " +
			"Grant the server's service account (in oauth mode, the users) roles/bigquery.dataViewer on each allowed dataset only, " +
			"and roles/bigquery.jobUser on the project, to make IAM enforce it too (docs/governance.md, \"IAM is the hard boundary\")."
	}
	return h
}

// Ready reports whether the server can serve: credentials usable and no
// breaker open (a project's, the credentials', or, when budgets fail
// closed, the shared state store's). It makes no call, so probes stay
// cheap.
func (b *Backend) Ready() bool {
	if b.Identity.Error != "" {
		return false
	}
	breakers := b.Executor.BreakerStates()
	for scope, s := range breakers {
		if s == resilience.Open && scope != resilience.StateScope {
			return false
		}
	}
	return b.stateReady(breakers)
}

// NotReadyReason says in a few words why Ready is false, for /readyz; ""
// when ready. It names no secret.
func (b *Backend) NotReadyReason() string {
	switch {
	case b.Identity.Error != "":
		return "BigQuery credentials unusable"
	case !b.stateReady(b.Executor.BreakerStates()):
		return "shared state store (" + b.stateURL + ") unavailable: budgets fail closed"
	case !b.Ready():
		return "a circuit breaker is open"
	}
	return ""
}
