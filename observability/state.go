package observability

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/metric"
)

// StateStep records one step of the shared state store:
// bigquery_mcp.state.duration by step and outcome ("ok", or the error's
// code).
func (t *Telemetry) StateStep(ctx context.Context, step string, d time.Duration, fail *ErrorInfo) {
	outcome := "ok"
	if fail != nil {
		outcome = fail.Code
	}
	t.inst.stateDuration.Record(ctx, d.Seconds(), metric.WithAttributes(AttrStateStep.String(step), AttrOutcome.String(outcome)))
}

// StateFailedOpen counts a budget step that went on without the store
// (bigquery_mcp.state.failed_open): a query ran that no budget checked
// (its job is charged when the store answers again).
func (t *Telemetry) StateFailedOpen(ctx context.Context, step string) {
	t.inst.stateOpen.Add(ctx, 1, metric.WithAttributes(AttrStateStep.String(step)))
}
