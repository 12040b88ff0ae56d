package job

import (
	"context"
	"time"
)

// Progress is what a caller that asked for progress hears: while a job
// runs, its ID, state, age and bytes read (JobID set); while an export
// writes its result, rows and bytes written so far (JobID empty), of
// TotalRows when the reader knows it.
type Progress struct {
	JobID string
	// State is BigQuery's job state: PENDING or RUNNING.
	State string
	// Elapsed is the time since the job was created (since the call
	// started when BigQuery did not say).
	Elapsed time.Duration
	// BytesProcessed is what the job has read so far, when BigQuery says.
	BytesProcessed int64

	// Rows and Bytes are what a writer wrote so far.
	Rows      int64
	TotalRows uint64
	Bytes     int64
}

// ProgressFunc receives progress reports.
type ProgressFunc func(ctx context.Context, p Progress)

type progressKey struct{}

// WithProgress returns ctx carrying report, which the services call while
// a call waits for a job or writes its result. The server wiring puts it
// there for clients that asked for progress notifications, so no service
// needs knowledge of MCP.
func WithProgress(ctx context.Context, report ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ProgressOf is ctx's reporter; nil when the caller asked for none.
func ProgressOf(ctx context.Context) ProgressFunc {
	f, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return f
}
