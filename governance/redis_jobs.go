package governance

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
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
	if !r.available(ctx, false) && r.keepIfDown(ctx, "record_job", write) {
		r.local.Record(j)
		return nil
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
	if !r.available(ctx, false) {
		if local, lerr := r.local.Lookup(id); lerr == nil {
			return local, nil
		}
		return JobRecord{}, fmt.Errorf("looking up job %s: %w", id, downError())
	}
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
