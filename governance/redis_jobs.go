package governance

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// jobKey is a job record's key. Job records are not per principal (the
// lookup is by job ID alone), so they carry no hash tag.
func (r *Redis) jobKey(id string) string { return r.cfg.StatePrefix + "job:" + id }

// RecordJob implements State. A record the store does not take is kept
// here (its owner can read the job through this instance) and written
// again when the store answers.
func (r *Redis) RecordJob(ctx context.Context, j JobRecord) error {
	if j.Started.IsZero() {
		j.Started = r.now()
	}
	write := func(ctx context.Context) error {
		return r.step(ctx, "record_job", func(ctx context.Context) error {
			key := r.jobKey(j.ID)
			view := "0"
			if j.ThroughView {
				view = "1"
			}
			_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, key, "p", j.Principal, "l", j.Location, "v", view, "r", j.Reservation, "t", j.Started.UnixMilli(), "tl", j.Tool, "st", j.Statement)
				// Kept twice its lifetime, so that its owner learns it
				// expired rather than that it never was. The TTL is
				// counted by this instance's clock, as the lookup's
				// expiry is: Redis's own clock decides nothing.
				p.PExpire(ctx, key, max(time.Millisecond, j.Started.Add(2*r.cfg.JobTTL).Sub(r.now())))
				return nil
			})
			return err
		})
	}
	if err := write(ctx); err != nil {
		r.local.Record(j)
		r.later(ctx, "record_job", err, write)
	}
	return nil
}

// LookupJob implements State. When the store cannot be asked, only the
// records this instance could not write are served; anything else is an
// error, never a guess: ownership fails closed whatever FailOpen says.
func (r *Redis) LookupJob(ctx context.Context, id string) (JobRecord, error) {
	var rec JobRecord
	found := false
	err := r.step(ctx, "lookup_job", func(ctx context.Context) error {
		m, err := r.client.HGetAll(ctx, r.jobKey(id)).Result()
		if err != nil {
			return err
		}
		if len(m) == 0 {
			return nil
		}
		ms, err := strconv.ParseInt(m["t"], 10, 64)
		if err != nil {
			return fmt.Errorf("job record %s has no start time", id)
		}
		rec = JobRecord{ID: id, Principal: m["p"], Location: m["l"], ThroughView: m["v"] == "1", Reservation: m["r"], Started: time.UnixMilli(ms), Tool: m["tl"], Statement: m["st"]}
		found = true
		return nil
	})
	if err == nil && found {
		if !r.now().Before(rec.Started.Add(r.cfg.JobTTL)) {
			return JobRecord{ID: id, Principal: rec.Principal}, &ForgottenJobError{ID: id, Principal: rec.Principal, Expired: true, TTL: r.cfg.JobTTL}
		}
		return rec, nil
	}
	if local, lerr := r.local.Lookup(id); lerr == nil {
		return local, nil
	}
	if err != nil {
		return JobRecord{}, fmt.Errorf("looking up job %s: %w", id, err)
	}
	return JobRecord{}, ErrJobNotRecorded
}

// later keeps a write the store did not take, to make again when it
// answers. The writes are idempotent (a settlement charges once, a
// release frees once, a record is the same record), so one that reached
// the store before its answer was lost does no harm when made again.
func (r *Redis) later(ctx context.Context, what string, err error, fn func(context.Context) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || len(r.pending) >= maxPending {
		r.log.WarnContext(ctx, "state write lost: the shared state store did not take it", "write", what, "error", bqerr.Redact(err.Error()))
		return
	}
	r.log.WarnContext(ctx, "state write kept for when the shared state store answers", "write", what, "error", bqerr.Redact(err.Error()))
	r.pending = append(r.pending, pendingWrite{what: what, fn: fn})
	if !r.running {
		r.running = true
		r.done = make(chan struct{})
		go r.retryPending(r.done)
	}
}

// retryPending makes the kept writes again, oldest first, until none is
// left or the state is closed: every RetryEvery (a second) while the store fails, and
// through the same breaker as every other step, so a Redis that is down
// is not hammered.
//
// done is this goroutine's own channel: a later goroutine gets another.
func (r *Redis) retryPending(done chan struct{}) {
	defer close(done)
	wait := r.cfg.RetryEvery
	for {
		select {
		case <-r.stop:
			r.mu.Lock()
			r.running = false
			r.mu.Unlock()
			return
		case <-time.After(wait):
		}
		for {
			r.mu.Lock()
			if len(r.pending) == 0 {
				r.running = false
				r.mu.Unlock()
				return
			}
			p := r.pending[0]
			r.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := p.fn(ctx)
			cancel()
			if err != nil {
				break
			}
			r.mu.Lock()
			r.pending = r.pending[1:]
			r.mu.Unlock()
		}
	}
}
