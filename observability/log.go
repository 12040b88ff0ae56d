// Package observability holds the server's logs, metrics and traces.
package observability

import (
	"io"
	"log/slog"
	"strings"
)

// LevelCritical is Cloud Logging's CRITICAL severity: failures an operator
// must act on (credentials, permissions).
const LevelCritical = slog.LevelError + 4

// NewLogger returns a JSON logger whose field names Cloud Logging
// understands: "severity" (DEBUG, INFO, WARNING, ERROR, CRITICAL) and
// "message". It must write to stderr: stdout is the MCP stdio stream.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.LevelKey:
				return slog.String("severity", Severity(a.Value.Any().(slog.Level)))
			case slog.MessageKey:
				a.Key = "message"
			}
			return a
		},
	}))
}

// Severity maps a slog level to Cloud Logging's severity names.
func Severity(l slog.Level) string {
	switch {
	case l >= LevelCritical:
		return "CRITICAL"
	case l >= slog.LevelError:
		return "ERROR"
	case l >= slog.LevelWarn:
		return "WARNING"
	case l >= slog.LevelInfo:
		return "INFO"
	default:
		return "DEBUG"
	}
}

// ParseLevel reads debug, info, warn(ing) or error.
func ParseLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, true
	case "info", "":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return 0, false
}

// Discard is a logger that drops everything, for tests and libraries.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
