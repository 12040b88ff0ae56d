package server

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// loggingLevels are the levels logging/setLevel accepts (RFC 5424 names, as
// the MCP spec lists them).
var loggingLevels = map[mcp.LoggingLevel]bool{
	"debug": true, "info": true, "notice": true, "warning": true,
	"error": true, "critical": true, "alert": true, "emergency": true,
}

// ProtocolErrors is receiving middleware that keeps protocol faults
// JSON-RPC errors with a real code. go-sdk v1.8.0 stores any logging level
// unchecked, and answers some faults (a second initialize) with a plain Go
// error, which reaches the client as code 0. Here an unknown level is
// -32602 (invalid params) as the spec asks, and an uncoded error becomes
// -32600 for initialize (the client broke the handshake) or -32603 for
// anything else, with its text redacted.
func ProtocolErrors() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil && !loggingLevels[p.Level] {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: "unknown logging level: want debug, info, notice, warning, error, critical, alert or emergency"}
			}
			res, err := next(ctx, method, req)
			var coded *jsonrpc.Error
			if err == nil || errors.As(err, &coded) {
				return res, err
			}
			code := int64(jsonrpc.CodeInternalError)
			if method == "initialize" {
				code = jsonrpc.CodeInvalidRequest
			}
			return nil, &jsonrpc.Error{Code: code, Message: bqerr.Truncate(bqerr.Redact(err.Error()), 500)}
		}
	}
}
