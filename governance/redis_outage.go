package governance

// An outage of the store, as one instance lives it. The first step that
// fails marks the store down; from then on no step goes to it (nor
// through the breaker, which may stay open for a minute) until a probe,
// made past the breaker, finds it answering. Then the instance writes
// what it kept meanwhile (the settlements of the queries it ran
// unchecked, its releases and job records), oldest first, and only when
// all of it is written is the store up again and the wiring told
// (RedisConfig.Recovered closes the breaker): a query admitted after that
// is checked against a ledger that already holds what this instance
// spent during the outage.
//
// Probes are made:
//   - in the background, every RetryEvery (a second) while the store is
//     down, so an instance with no traffic settles within seconds too;
//   - by a budget step (Check, Reserve) or a write, when the last probe
//     failed at least probeEvery ago by the state's clock, so a hung
//     store costs one query a second a probe's wait, not every query;
//   - by every Report: usage answers as soon as the store does.
//
// A step arriving while another writes the kept writes waits for them:
// the store answered, so what follows must count them.

import (
	"context"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

const (
	// probeEvery spaces the probes that steps make while the store is
	// down, by the state's clock.
	probeEvery = time.Second
	// probeTimeout bounds a probe's PING (the client's own read timeout,
	// a second, is what a hung store costs).
	probeTimeout = 2 * time.Second
	// writeTimeout bounds each kept write made again.
	writeTimeout = 5 * time.Second
)

// downError is what a step skipped while the store is down fails with.
func downError() error {
	return bqerr.New(bqerr.Unavailable, StoreName+" did not answer; it is probed every second").WithRetryAfter(1)
}

// Down reports whether the store is down for this instance: a step failed
// and no probe has since found it answering with everything kept written.
func (r *Redis) Down() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.down
}

// markDown records that the store failed a step, and starts the
// background probe.
func (r *Redis) markDown() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = true
	r.watchLocked()
}

// watchLocked starts the background probe unless it runs or the state is
// closed. r.mu must be held.
func (r *Redis) watchLocked() {
	if r.running || r.closed {
		return
	}
	r.running = true
	r.done = make(chan struct{})
	go r.watch(r.done)
}

// available reports whether a step may go to the store: it is up, or a
// probe made now (when one is due, or always with force) found it
// answering and the writes kept meanwhile are written.
func (r *Redis) available(ctx context.Context, force bool) bool {
	r.mu.Lock()
	if !r.down {
		r.mu.Unlock()
		return true
	}
	now := r.now()
	if !force && !r.flushing && now.Before(r.probed.Add(probeEvery)) {
		r.mu.Unlock()
		return false
	}
	if !r.flushing {
		r.probed = now
	}
	r.mu.Unlock()
	return r.reconcile(ctx)
}

// reconcile probes the store past the breaker and, when it answers, writes
// every kept write, oldest first, and marks the store up. It reports
// whether the store is up. Only one reconcile writes at a time; a step
// that finds one writing waits for it.
func (r *Redis) reconcile(ctx context.Context) bool {
	ctx = context.WithoutCancel(ctx)
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	err := r.client.Ping(pctx).Err()
	cancel()
	if err != nil {
		return false
	}
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	if !r.down {
		r.mu.Unlock()
		return true
	}
	r.flushing = true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.flushing = false
		r.mu.Unlock()
	}()
	dctx := context.WithValue(ctx, directKey{}, true)
	wrote := 0
	for {
		r.mu.Lock()
		if len(r.pending) == 0 {
			r.down = false
			r.mu.Unlock()
			break
		}
		p := r.pending[0]
		r.mu.Unlock()
		wctx, cancel := context.WithTimeout(dctx, writeTimeout)
		err := p.fn(wctx)
		cancel()
		if err != nil {
			r.mu.Lock()
			r.probed = r.now()
			r.mu.Unlock()
			return false
		}
		r.mu.Lock()
		r.pending = r.pending[1:]
		r.mu.Unlock()
		wrote++
	}
	if r.cfg.Recovered != nil {
		r.cfg.Recovered()
	}
	r.log.InfoContext(ctx, "shared state store answers again: what this instance kept through the outage is written, budgets are checked again", "writes", wrote)
	return true
}

// keepIfDown keeps a write for when the store answers, without trying it,
// when the store is down; false when it is up (make the write now).
func (r *Redis) keepIfDown(ctx context.Context, what string, fn func(context.Context) error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.down {
		return false
	}
	r.keepLocked(ctx, what, "the shared state store is down", fn)
	return true
}

// later keeps a write the store did not take, to make again when it
// answers. The writes are idempotent (a settlement charges once, a
// release frees once, a record is the same record), so one that reached
// the store before its answer was lost does no harm when made again.
// The store is down until the write is made.
func (r *Redis) later(ctx context.Context, what string, err error, fn func(context.Context) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = true
	r.keepLocked(ctx, what, bqerr.Redact(err.Error()), fn)
	r.watchLocked()
}

// keepLocked appends a kept write, or logs it lost when the state is
// closed or keeps too many. r.mu must be held.
func (r *Redis) keepLocked(ctx context.Context, what, why string, fn func(context.Context) error) {
	if r.closed || len(r.pending) >= maxPending {
		r.log.WarnContext(ctx, "state write lost: the shared state store did not take it", "write", what, "error", why)
		return
	}
	r.log.WarnContext(ctx, "state write kept for when the shared state store answers", "write", what, "error", why)
	r.pending = append(r.pending, pendingWrite{what: what, fn: fn})
}

// watch probes the store every RetryEvery while it is down, until a probe
// finds it answering (and the kept writes are written) or the state is
// closed: an instance that serves nothing meanwhile still settles what it
// owes, and closes its breaker, within seconds of the store's return.
//
// done is this goroutine's own channel: a later goroutine gets another.
func (r *Redis) watch(done chan struct{}) {
	defer close(done)
	for {
		select {
		case <-r.stop:
			r.mu.Lock()
			r.running = false
			r.mu.Unlock()
			return
		case <-time.After(r.cfg.RetryEvery):
		}
		r.available(context.Background(), true)
		r.mu.Lock()
		if !r.down {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
}
