package job

// A query job of a call, as one value. The tool's checks hold the job's
// estimate in the caller's budget (a Charge); from Begin on, the Handle
// owns that hold, and its Close ends it in one place, whatever happened
// in between, as gobreaker's Allow hands back the one done func that
// must report the call: the job's cost settles the hold when the job is
// seen to end, the follower takes a job that outlives the call, and a
// hold whose job never started is given back. A caller defers Close and
// may call it earlier (a finished job is settled before its rows are
// read); later calls do nothing.

import (
	"context"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Handle is one query job of a call, from its start to the end of its
// charge. It is not safe for concurrent use: one call drives it.
type Handle struct {
	r      *Runner
	op     resilience.Operation
	charge Charge
	view   bool
	// job is the job once BigQuery named it (or recoverJob found it).
	job Ref
	// page is the job's last answer; nil before it has one.
	page *Page
	// failed is set when waiting for the job failed: its end is read with
	// jobs.get when the handle closes.
	failed bool
	closed bool
}

// Begin returns the handle of a query job about to start under op, charged
// to c (the hold the tool's checks made; a zero Charge holds nothing) and
// recorded as the caller's, read through an authorized view when
// throughView is set (owner.go). Start the job with Query or Insert, and
// always Close the handle.
func (r *Runner) Begin(op resilience.Operation, c Charge, throughView bool) *Handle {
	return &Handle{r: r, op: op, charge: c, view: throughView}
}

// Job is the handle's job: its ID and location once BigQuery named it,
// zero while no job is known to have started.
func (h *Handle) Job() Ref { return h.job }

// query starts the job with jobs.query, waiting for it until until at most
// (wait.go), and records it as the caller's. req comes from
// Runner.QueryRequest: its requestId, chosen there once, makes every
// attempt the same job. When the request fails, a job a cancelled call
// had started is looked for with the same requestId (recoverJob) and becomes
// the handle's, to be stopped by the caller and followed by Close.
func (h *Handle) Query(ctx context.Context, req *bq.QueryRequest, until time.Time) (*Page, error) {
	p, err := h.r.query(ctx, h.op, req, until)
	if err != nil {
		h.started(ctx, h.r.recoverJob(ctx, h.op, req))
		return nil, err
	}
	h.page = p
	h.started(ctx, p.Job)
	return p, nil
}

// Insert starts the job with jobs.insert under ref's ID, chosen before the
// first attempt, with BigQuery's own backstop at timeout (start.go), and
// records it as the caller's. A job BigQuery fails at once comes back as
// its error, as no job.
func (h *Handle) Insert(ctx context.Context, ref Ref, q *bq.JobConfigurationQuery, timeout time.Duration) error {
	ref, err := h.r.insertQuery(ctx, ref, q, timeout)
	if err != nil {
		return err
	}
	h.r.remember(ref)
	h.page = &Page{Job: ref}
	h.started(ctx, ref)
	return nil
}

// started makes job, when BigQuery named one, the handle's and the
// caller's.
func (h *Handle) started(ctx context.Context, job Ref) {
	if job.ID == "" {
		return
	}
	h.job = job
	h.r.own(ctx, job, h.charge, h.view)
}

// Await polls the job until it completes or until passes (wait.go) and
// returns its last page, reading up to maxRows rows; since is when the
// call began, for progress reports. A failed wait leaves the job's end to
// jobs.get when the handle closes.
func (h *Handle) Await(ctx context.Context, maxRows int, since, until time.Time) (*Page, error) {
	if h.page == nil {
		return nil, bqerr.New(bqerr.Internal, "no job to wait for").WithRetryable(false)
	}
	p, err := h.r.Await(ctx, h.op, h.page, 0, maxRows, since, until)
	h.page = p
	if err != nil {
		h.failed = true
	}
	return p, err
}

// finished reads the finished job (jobs.get, through the client library)
// for its configuration and statistics, and settles its cost from them; a
// job that cannot be read is left to the follower. It closes the handle.
func (h *Handle) Finished(ctx context.Context) (*Job, error) {
	if h.closed || h.job.ID == "" {
		return nil, bqerr.New(bqerr.Internal, "no job to read").WithRetryable(false)
	}
	h.closed = true
	return h.r.finished(ctx, h.job, h.charge)
}

// Close ends the job's charge, once: with no job known to have started,
// the hold is given back; a job whose wait failed is settled from
// jobs.get (or followed while it runs); a complete job is settled from its
// answer's bytes billed, or from jobs.get when the answer has none (which
// then fills the page's); a job still running, or one a cancelled call had
// started, goes to the follower.
func (h *Handle) Close(ctx context.Context) {
	if h.closed {
		return
	}
	h.closed = true
	r, c, p := h.r, h.charge, h.page
	switch {
	case h.job.ID == "":
		r.release(ctx, c)
	case h.failed:
		r.SettleFromJob(ctx, h.job, c)
	case p != nil && p.Complete && p.Billed:
		r.settle(ctx, h.job, c, Status{BytesProcessed: p.BytesProcessed, BytesBilled: p.BytesBilled,
			SlotMs: p.SlotMs, HaveSlotMs: true, CacheHit: p.CacheHit})
	case p != nil && p.Complete:
		if st, ok := r.SettleFromJob(ctx, h.job, c); ok {
			p.BilledBy(st)
		}
	default:
		r.follow(ctx, h.job, c)
	}
}

// release gives back c's hold, whose job never started.
func (r *Runner) release(ctx context.Context, c Charge) {
	if c.Reservation == "" {
		return
	}
	if err := r.cfg.State.Release(context.WithoutCancel(ctx), c.Reservation); err != nil {
		r.log.WarnContext(ctx, "budget reservation not released", "error", bqerr.Redact(err.Error()))
	}
}
