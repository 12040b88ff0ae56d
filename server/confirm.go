package server

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// confirmationID names the one input request a tool call may make: the
// user's approval of an expensive query.
const confirmationID = "confirm_query_cost"

// Confirm asks the user before a query above --confirm-above-bytes runs
// (query.ConfirmationRequired), through MCP elicitation: a call returns
// an input-required result, and the client calls again with the user's
// answer, which this middleware hands to the query as query.Answer. go-sdk
// turns that into a server-to-client elicitation/create request for
// clients older than the 2026-07-28 protocol.
//
// A client that cannot ask its user gets RESOURCE_EXHAUSTED with the
// estimate instead, never a silent run: one that declares no elicitation,
// and one on an older protocol over stateless HTTP, where the server cannot
// send it requests.
func Confirm(stateless bool) Middleware {
	return func(_ string, next Handler) Handler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
			if r, ok := req.Params.InputResponses[confirmationID].(*mcp.ElicitResult); ok {
				ctx = query.WithAnswer(ctx, answerOf(r))
			}
			out, err := next(ctx, req)
			var need *query.ConfirmationRequired
			if !errors.As(err, &need) {
				return out, err
			}
			if !canElicit(req, stateless) {
				return nil, need.AsError()
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{confirmationID: &mcp.ElicitParams{
				Mode:            "form",
				Message:         need.Message(),
				RequestedSchema: confirmationSchema,
			}}}, nil
		}
	}
}

// confirmationSchema is the form the user answers: one checkbox, on.
var confirmationSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"run": map[string]any{"type": "boolean", "title": "Run the query", "default": true},
	},
}

// answerOf reads the user's answer: accepted only with an explicit accept
// that did not untick the box.
func answerOf(r *mcp.ElicitResult) query.Answer {
	if r.Action != "accept" {
		return query.Declined
	}
	if run, ok := r.Content["run"].(bool); ok && !run {
		return query.Declined
	}
	return query.Accepted
}

// canElicit reports whether this call's client can be asked a form
// question.
func canElicit(req *mcp.CallToolRequest, stateless bool) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || caps.Elicitation.Form == nil && caps.Elicitation.URL != nil {
		return false
	}
	// Before 2026-07-28 the question is a request from server to client,
	// which a stateless HTTP server cannot send.
	return !stateless || req.ProtocolVersion() >= "2026-07-28"
}
