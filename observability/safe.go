package observability

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"
)

// SafeHandler wraps h so that a failure inside logging never takes the
// process down: a panic in h (a broken handler, a value whose methods
// panic) is recovered. A record that could not be written is replaced by
// one JSON line on fallback saying so, passed through redact; nil fallback
// drops it. A nil redact is a programming error and panics here.
func SafeHandler(h slog.Handler, fallback io.Writer, redact func(string) string) slog.Handler {
	if redact == nil {
		panic("observability: SafeHandler needs a redaction function")
	}
	if s, ok := h.(*safeHandler); ok {
		return s
	}
	return &safeHandler{inner: h, fallback: fallback, redact: redact}
}

type safeHandler struct {
	inner    slog.Handler
	fallback io.Writer
	redact   func(string) string
}

func (h *safeHandler) Enabled(ctx context.Context, l slog.Level) (on bool) {
	defer func() {
		if recover() != nil {
			on = l >= slog.LevelWarn
		}
	}()
	return h.inner.Enabled(ctx, l)
}

func (h *safeHandler) Handle(ctx context.Context, r slog.Record) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("log handler panicked: %s", h.redact(fmt.Sprint(p)))
			h.report(r, err)
		}
	}()
	return h.inner.Handle(ctx, r)
}

func (h *safeHandler) WithAttrs(as []slog.Attr) (out slog.Handler) {
	defer func() {
		if p := recover(); p != nil {
			out = h // the attributes are lost, the logger keeps working
			h.report(slog.NewRecord(time.Now(), slog.LevelError, "binding log attributes", 0),
				fmt.Errorf("log handler panicked: %s", h.redact(fmt.Sprint(p))))
		}
	}()
	return &safeHandler{inner: h.inner.WithAttrs(as), fallback: h.fallback, redact: h.redact}
}

func (h *safeHandler) WithGroup(name string) (out slog.Handler) {
	defer func() {
		if recover() != nil {
			out = h
		}
	}()
	return &safeHandler{inner: h.inner.WithGroup(name), fallback: h.fallback, redact: h.redact}
}

// report writes the fallback line; it cannot fail loudly itself.
func (h *safeHandler) report(r slog.Record, err error) {
	if h.fallback == nil {
		return
	}
	defer func() { _ = recover() }()
	b, _ := json.Marshal(map[string]string{
		"severity": "ERROR",
		"message":  "a log line could not be written: " + err.Error(),
		"dropped":  truncate(h.redact(r.Message), 200),
		"time":     r.Time.Format(time.RFC3339Nano),
	})
	_, _ = h.fallback.Write(append(b, '\n'))
}

// truncate cuts s to at most n runes, the last one an ellipsis when cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
