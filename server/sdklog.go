package server

import (
	"context"
	"log/slog"
)

// sdkLogger is the logger go-sdk gets: the server's, without the SDK's
// per-connection INFO lines. A stateless HTTP server connects a session for
// every request, so those would be three log entries per call that tell an
// operator nothing (requests are logged by the tool middleware).
func sdkLogger(log *slog.Logger) *slog.Logger {
	return slog.New(quietConnections{log.Handler()})
}

// connectionChatter are go-sdk's per-connection messages.
var connectionChatter = map[string]bool{
	"server connecting":           true,
	"server session connected":    true,
	"server session disconnected": true,
}

type quietConnections struct{ slog.Handler }

func (q quietConnections) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn && connectionChatter[r.Message] {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

func (q quietConnections) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietConnections{q.Handler.WithAttrs(attrs)}
}

func (q quietConnections) WithGroup(name string) slog.Handler {
	return quietConnections{q.Handler.WithGroup(name)}
}
