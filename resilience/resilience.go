// Package resilience runs every BigQuery call the tools make under one set
// of per-operation policies, so that transient faults are absorbed in one
// place and tools never hand-roll retries.
//
// The pieces, from the wire up:
//   - [Transport] sits under the BigQuery client and makes every failed
//     request final for the client library, whose own retries have no
//     attempt cap and cannot be switched off. This package's retries are
//     then the only ones, and an attempt cap holds at the wire.
//   - [Executor.Do] runs a call under its operation's policy: a circuit
//     breaker per scope (a project, or [CredentialsScope] for token
//     fetches) that fails fast while BigQuery is unhealthy, exponential
//     backoff with jitter that honours Retry-After, an attempt cap and an
//     overall timeout. Policies come from github.com/failsafe-go/failsafe-go.
//   - [Cache] keeps metadata fresh for a TTL and serves it stale, marked as
//     such, when a refresh fails for a reason that a retry could fix.
//
// The package knows BigQuery's failure classes (through bqerr) but nothing
// of MCP.
package resilience

// Operation names a class of BigQuery call with its own policy.
type Operation string

// The operation classes.
const (
	// Query covers query jobs: insert, wait, read results, dry run, cancel.
	Query Operation = "query"
	// Metadata covers dataset/table listing and schema reads.
	Metadata Operation = "metadata"
	// Write covers statements that change data or schema: DML, DDL and
	// scripts that execute_sql runs when the server allows writes, and
	// table inserts when a tool adds them. Its policy tries fewer times
	// than Query: a retried write is safe only because its job ID is fixed
	// before the first attempt, and a write that keeps failing is better
	// reported than repeated.
	Write Operation = "write"
	// Auth covers token acquisition.
	Auth Operation = "auth"
	// State covers the steps of the shared governance state in Redis
	// (--state): budget reservations and job records. It is not BigQuery,
	// but a dependency like it, so it gets the same retry and breaker
	// (scope [StateScope]); its policy is short, since a budget step
	// stands before every query.
	State Operation = "state"
	// Export covers reading a finished query's result table whole for
	// export_results: the Storage Read API session and its streams, or the
	// copy job of a table export. An attempt rewrites its file from the
	// start, so it is safe to repeat; its policy tries fewer times than
	// Query because each attempt may move the whole result again.
	Export Operation = "export"
)
