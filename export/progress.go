package export

import (
	"context"
	"time"
)

// Progress is what a caller that asked for progress hears while rows are
// written: rows so far, of TotalRows when the reader knows it.
type Progress struct {
	Rows      int64
	TotalRows uint64
	Bytes     int64
}

// ProgressFunc receives progress reports.
type ProgressFunc func(ctx context.Context, p Progress)

type progressKey struct{}

// WithProgress returns ctx carrying report, which Export calls while it
// writes a file (every progressRows rows, at most once per progressEvery).
// The server wiring puts it there for clients that sent a progress token,
// so this package needs no knowledge of MCP.
func WithProgress(ctx context.Context, report ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

func progressOf(ctx context.Context) ProgressFunc {
	f, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return f
}

// progressRows is how often (in rows) the clock is looked at.
const progressRows = 1024

// progressEvery is the least time between two reports: often enough that
// a host shows movement, rare enough to cost nothing. Tests shorten it.
var progressEvery = time.Second
