package governance

import "context"

// State is the governance state that outlives a call: the bytes budgets
// with their reservations, and the records of who started which job. Both
// sit behind this one interface so that a shared backend (every instance
// of a fleet seeing one ledger and one set of jobs) replaces the
// constructor, not the call sites. Memory is the default. Every method
// takes a context and may fail, as a networked backend can.
//
// A backend must make Reserve's check-and-hold one atomic step, and Settle
// and Release idempotent per reservation: that is what keeps the budgets'
// bound under calls running at once, on any number of instances.
type State interface {
	// Limited reports whether any bytes limit is set: only then must a
	// query's cost be estimated before it runs.
	Limited() bool
	// Check refuses an estimate that is more than principal has left,
	// holding nothing (dry_run_sql).
	Check(ctx context.Context, principal string, estimate int64) error
	// Reserve holds bytes for a job about to start, or refuses with
	// RESOURCE_EXHAUSTED; it returns the reservation's ID.
	Reserve(ctx context.Context, principal string, bytes int64) (string, error)
	// Settle ends a reservation with its job's cost, once: it reports
	// false for one already settled or released.
	Settle(ctx context.Context, reservation string, u Usage) (bool, error)
	// Release ends a reservation whose job never started, charging nothing.
	Release(ctx context.Context, reservation string) error
	// Report is principal's spending, holds and what is left.
	Report(ctx context.Context, principal string) (Report, error)
	// RecordJob remembers a job the server started.
	RecordJob(ctx context.Context, j JobRecord) error
	// LookupJob returns a job's record: ErrJobNotRecorded when there is
	// none, a *ForgottenJobError when it expired or was evicted.
	LookupJob(ctx context.Context, id string) (JobRecord, error)
	// RecentJobs is principal's last settled jobs (those Settle was given
	// with Usage.Job), newest first: at most MaxRecentJobs, none older
	// than a job record's lifetime.
	RecentJobs(ctx context.Context, principal string) ([]FinishedJob, error)
}

// Memory is State kept in this process: the Budget's ledger and a
// JobStore. A restart forgets both.
type Memory struct {
	budget *Budget
	jobs   *JobStore
}

// NewMemory returns in-process state over budget (nil: no limits, nothing
// counted) and jobs (nil: a JobStore of the default size).
func NewMemory(budget *Budget, jobs *JobStore) *Memory {
	if jobs == nil {
		jobs = NewJobStore(JobStoreConfig{})
	}
	return &Memory{budget: budget, jobs: jobs}
}

// Limited implements State.
func (m *Memory) Limited() bool { return m.budget.Limited() }

// Check implements State.
func (m *Memory) Check(_ context.Context, principal string, estimate int64) error {
	return m.budget.Check(principal, estimate)
}

// Reserve implements State.
func (m *Memory) Reserve(_ context.Context, principal string, bytes int64) (string, error) {
	return m.budget.Reserve(principal, bytes)
}

// Settle implements State.
func (m *Memory) Settle(_ context.Context, reservation string, u Usage) (bool, error) {
	return m.budget.Settle(reservation, u), nil
}

// Release implements State.
func (m *Memory) Release(_ context.Context, reservation string) error {
	m.budget.Release(reservation)
	return nil
}

// Report implements State.
func (m *Memory) Report(_ context.Context, principal string) (Report, error) {
	return m.budget.Report(principal), nil
}

// RecordJob implements State.
func (m *Memory) RecordJob(_ context.Context, j JobRecord) error {
	m.jobs.Record(j)
	return nil
}

// LookupJob implements State.
func (m *Memory) LookupJob(_ context.Context, id string) (JobRecord, error) {
	return m.jobs.Lookup(id)
}
