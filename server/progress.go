package server

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/export"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// ReportProgress gives a tool call whose client sent a progressToken a
// reporter (query.WithProgress) that turns the query service's reports on a
// running job into notifications/progress on the call's session. Calls
// without a token get none, so the query service skips the work.
func ReportProgress() Middleware {
	return func(_ string, next Handler) Handler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
			if req == nil || req.Params == nil || req.Session == nil {
				return next(ctx, req)
			}
			tok := req.Params.GetProgressToken()
			if tok == nil {
				return next(ctx, req)
			}
			reports := 0
			ctx = query.WithProgress(ctx, func(ctx context.Context, p query.Progress) {
				// Progress must grow with every notification; the
				// count of reports does, whatever BigQuery says.
				reports++
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: tok,
					Progress:      float64(reports),
					Message:       progressMessage(p),
				})
			})
			// An export reports rows written, after its job's reports:
			// kept above their count, so progress still only grows.
			ctx = export.WithProgress(ctx, func(ctx context.Context, p export.Progress) {
				reports = max(reports+1, int(p.Rows))
				n := &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(reports),
					Message: fmt.Sprintf("%d rows written (%d bytes)", p.Rows, p.Bytes)}
				if p.TotalRows > 0 && uint64(reports) <= p.TotalRows {
					n.Total = float64(p.TotalRows)
					n.Message = fmt.Sprintf("%d of %d rows written (%d bytes)", p.Rows, p.TotalRows, p.Bytes)
				}
				_ = req.Session.NotifyProgress(ctx, n)
			})
			return next(ctx, req)
		}
	}
}

func progressMessage(p query.Progress) string {
	msg := fmt.Sprintf("job %s %s for %s", p.JobID, p.State, p.Elapsed.Round(time.Second))
	if p.BytesProcessed > 0 {
		msg += fmt.Sprintf(", %d bytes processed so far", p.BytesProcessed)
	}
	return msg
}
