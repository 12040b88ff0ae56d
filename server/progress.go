package server

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/job"
)

// ReportProgress gives a tool call whose client sent a progressToken a
// reporter (job.WithProgress) that turns the services' reports into
// notifications/progress on the call's session: a running job's state,
// and an export's rows written. Calls without a token get none, so the
// services skip the work.
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
			ctx = job.WithProgress(ctx, func(ctx context.Context, p job.Progress) {
				if p.JobID != "" {
					// Progress must grow with every notification; the
					// count of reports does, whatever BigQuery says.
					reports++
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: tok,
						Progress:      float64(reports),
						Message:       progressMessage(p),
					})
					return
				}
				// An export reports rows written, after its job's
				// reports: kept above their count, so progress still only
				// grows.
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

func progressMessage(p job.Progress) string {
	msg := fmt.Sprintf("job %s %s for %s", p.JobID, p.State, p.Elapsed.Round(time.Second))
	if p.BytesProcessed > 0 {
		msg += fmt.Sprintf(", %d bytes processed so far", p.BytesProcessed)
	}
	return msg
}
