package job_test

import (
	"context"
	"fmt"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// exampleTB stands in for the *testing.T an Example has none of: the
// fake's cleanups run when the example ends.
type exampleTB struct{ cleanups []func() }

func (*exampleTB) Helper()                           {}
func (e *exampleTB) Cleanup(f func())                { e.cleanups = append(e.cleanups, f) }
func (*exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func (e *exampleTB) done() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
}

// A tool's query job, from the hold its checks made to its settled cost:
// Begin hands the hold to the job's Handle, whose deferred Close ends it
// whatever happens (here the job completes in its jobs.query answer, and
// the explicit Close settles it to the 10 MB BigQuery billed before the
// rows are read). BigQuery is bqfake here.
func Example() {
	t := &exampleTB{}
	defer t.done()
	fake := bqfake.New(t)
	fake.QueryResult(bqfake.Columns("n INTEGER"), bqfake.Row("42"))
	fake.OnJob(func(j *bq.Job) { j.Statistics.Query.TotalBytesBilled = 10 << 20 })
	exec, err := resilience.NewExecutor(resilience.Defaults(), resilience.Hooks{})
	if err != nil {
		panic(err)
	}
	state := governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerDay: 1 << 30}), nil)
	hc := fake.HTTPClient()
	runner := job.New(job.Config{Client: fake.Client(t, hc), REST: fake.REST(t, hc), Executor: exec, Project: "p", State: state})
	defer runner.Close()

	ctx := context.Background()
	// The tool's checks held the dry run's estimate in the caller's budget.
	hold, err := state.Reserve(ctx, "", 50<<20)
	if err != nil {
		panic(err)
	}
	h := runner.Begin(resilience.Query, job.Charge{Reservation: hold, Estimate: 50 << 20}, false)
	defer h.Close(ctx)
	req := runner.QueryRequest(ctx, job.QueryConfig(job.QuerySpec{SQL: "SELECT 42 AS n"}), "", 10, time.Minute)
	p, err := h.Query(ctx, req, time.Now().Add(time.Minute))
	if err != nil {
		panic(err)
	}
	h.Close(ctx)
	rep, _ := state.Report(ctx, "")
	fmt.Println("complete:", p.Complete, "rows:", p.Rows[0].F[0].V)
	fmt.Println("jobs:", rep.Today.Jobs, "billed:", governance.FormatBytes(rep.Today.BytesBilled), "held:", rep.Reserved)
	// Output:
	// complete: true rows: 42
	// jobs: 1 billed: 10.0 MiB held: 0
}
