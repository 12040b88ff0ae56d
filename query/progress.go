package query

import (
	"context"
	"time"
)

// Progress is what a caller waiting for a job hears every few seconds.
type Progress struct {
	JobID string
	// State is BigQuery's job state: PENDING or RUNNING.
	State string
	// Elapsed is the time since the job was created (since the call
	// started when BigQuery did not say).
	Elapsed time.Duration
	// BytesProcessed is what the job has read so far, when BigQuery says.
	BytesProcessed int64
}

// ProgressFunc receives progress reports.
type ProgressFunc func(ctx context.Context, p Progress)

type progressKey struct{}

// WithProgress returns ctx carrying report, which the query service calls
// while a call waits for a running job. The server wiring puts it there for
// clients that asked for progress notifications, so this package needs no
// knowledge of MCP.
func WithProgress(ctx context.Context, report ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

func progressOf(ctx context.Context) ProgressFunc {
	f, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return f
}
