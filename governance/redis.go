package governance

// The shared governance state: budgets and job records in Redis, so that
// every instance of a fleet (Cloud Run scales to as many as traffic needs)
// spends from one ledger and answers for one set of jobs. A 50 GiB day
// budget must stay 50 GiB when eight instances serve it.
//
// Each budget step is one Lua script, which Redis runs atomically: the
// check and the hold of Reserve cannot be split by another instance's
// Reserve, so two instances never both spend the last bytes. Every key
// has a TTL, and a principal's keys share one hash tag, so that each
// script's keys would sit in one slot of a Redis Cluster; the client here
// is a single-node one (Memorystore for Redis, or Valkey with cluster mode
// disabled), and a cluster client is all a cluster would need.
//
// Keys (P is the prefix, H the first 16 hex digits of the principal's
// SHA-256, so no e-mail or token ever becomes a key name):
//
//	P{H}:acct         hash: the session's jobs, bytes processed and billed (s_*)
//	                  and what running jobs hold (held); 48 h after last use
//	P{H}:day:DATE     hash: the UTC day's jobs, processed, billed; ends with the day (+1 h)
//	P{H}:holds        hash: reservation ID → bytes held
//	P{H}:holdexp      sorted set: reservation ID → when the hold lapses (25 h)
//	P{H}:done:ID      marker of an unheld reservation already charged (25 h)
//	Pjob:JOBID        hash: the job record (principal, location, verdict,
//	                  reservation, start); 48 h, served for 24 h
//
// When Redis cannot be asked, the budget steps fail closed (a retryable
// UNAVAILABLE that names the store) unless FailOpen is set or no limit is
// configured; settlements, releases and job records that could not be
// written are kept and written again when it answers (each is idempotent,
// so nothing is charged twice), and a job recorded meanwhile stays
// readable, by its owner, on the instance that started it.

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// DefaultRedisPrefix namespaces every key the server writes, so that one
// Redis can serve other applications (or several deployments, each with
// its own prefix).
const DefaultRedisPrefix = "bigquery-mcp:"

const (
	// holdTTL is how long a reservation holds bytes when nobody settles
	// it: longer than the query follower's 24 hours, after which it charges
	// the estimate itself. A hold that lapses (its instance was stopped
	// while its job ran) is charged its estimate, as the follower would.
	holdTTL = 25 * time.Hour
	// accountTTL ends a principal's session account 48 hours after its
	// last use (the memory ledger's idle account): a session is the
	// fleet's, and lasts while it is used.
	accountTTL = 48 * time.Hour
	// dayGrace keeps a day's account an hour past midnight, for clocks of
	// instances that disagree a little.
	dayGrace = time.Hour
	// maxPending bounds the writes kept for when the store answers again.
	maxPending = 10000
)

// RedisConfig configures a Redis-backed State.
type RedisConfig struct {
	// Client is the connection pool (NewRedisClient).
	Client *redis.Client
	// Prefix namespaces the keys (default DefaultRedisPrefix).
	Prefix string
	// PerSession and PerDay are the limits in bytes billed; zero: none.
	PerSession, PerDay int64
	// FailOpen lets queries run, uncounted, while the store cannot be
	// asked; by default budgets fail closed.
	FailOpen bool
	// JobTTL is how long a job record is served (default JobRecordTTL).
	JobTTL time.Duration
	// Do runs one step under the store's retry policy and circuit breaker
	// (the wiring passes resilience's); nil runs it once.
	Do func(ctx context.Context, fn func(context.Context) error) error
	// Hooks report each step to telemetry; every field is optional.
	Hooks RedisHooks
	// Logger gets warnings about the store (never a key's principal or a
	// password); nil discards them.
	Logger *slog.Logger
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// RedisHooks let the wiring measure the store without governance knowing
// about telemetry.
type RedisHooks struct {
	// Step is called after each step (reserve, settle, release, read,
	// record_job, lookup_job) with how long it took and its outcome.
	Step func(ctx context.Context, step string, d time.Duration, err error)
	// FailedOpen is called when a step went on without the store: a
	// query ran uncounted (--state-fail-open, or no limit set).
	FailedOpen func(ctx context.Context, step string)
}

// Redis is State shared by every instance that uses the same Redis.
type Redis struct {
	cfg    RedisConfig
	client *redis.Client
	log    *slog.Logger
	now    func() time.Time
	// local keeps the records of jobs started while the store could not be
	// written, so their owners can still read them here.
	local *JobStore

	mu      sync.Mutex
	pending []pendingWrite
	running bool
	closed  bool
	stop    chan struct{}
	done    chan struct{}
}

// pendingWrite is a write the store did not take, to try again.
type pendingWrite struct {
	what string
	fn   func(context.Context) error
}

// NewRedis returns State kept in Redis. It does not connect: Ping checks
// that the store answers.
func NewRedis(cfg RedisConfig) *Redis {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultRedisPrefix
	}
	if cfg.JobTTL <= 0 {
		cfg.JobTTL = JobRecordTTL
	}
	if cfg.Do == nil {
		cfg.Do = func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }
	}
	r := &Redis{cfg: cfg, client: cfg.Client, log: cfg.Logger, now: cfg.Now, local: NewJobStore(JobStoreConfig{Size: 10000, TTL: cfg.JobTTL}),
		stop: make(chan struct{}), done: make(chan struct{})}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

// StoreName is how errors, logs and health name the store.
const StoreName = "the shared state store (Redis)"

// Ping checks that the store answers (startup, health).
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("%s did not answer: %w", StoreName, err)
	}
	return nil
}

// FailOpen reports whether queries run uncounted while the store is down.
func (r *Redis) FailOpen() bool { return r.cfg.FailOpen }

// Pending is how many writes wait for the store to answer again.
func (r *Redis) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// Close stops retrying pending writes, gives each one last try (within
// a few seconds in all), logs those the store still did not take, and
// closes the connections.
func (r *Redis) Close() error {
	r.mu.Lock()
	running, done := r.running, r.done
	if !r.closed {
		r.closed = true
		close(r.stop)
	}
	r.mu.Unlock()
	if running {
		<-done
	}
	r.mu.Lock()
	pending := r.pending
	r.pending = nil
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lost := 0
	for _, p := range pending {
		if ctx.Err() != nil || p.fn(ctx) != nil {
			lost++
		}
	}
	if lost > 0 {
		r.log.Warn("state writes lost at shutdown: the shared state store did not take them", "writes", lost)
	}
	return r.client.Close()
}

// Limited implements State.
func (r *Redis) Limited() bool { return r.cfg.PerSession > 0 || r.cfg.PerDay > 0 }

// principalTag is the hash tag of principal's keys: a digest, so that
// key names carry no e-mail or token, and one tag so that a step's keys
// sit in one Redis Cluster slot.
func principalTag(principal string) string {
	sum := sha256.Sum256([]byte(principal))
	return hex.EncodeToString(sum[:8])
}

// keys are one principal's budget keys for the day of now.
type budgetKeys struct {
	acct, holds, holdexp, day, tag string
	dayEnd                         time.Time
}

func (r *Redis) keys(tag string) budgetKeys {
	now := r.now().UTC()
	base := r.cfg.Prefix + "{" + tag + "}:"
	day := now.Format(time.DateOnly)
	start, _ := time.Parse(time.DateOnly, day)
	return budgetKeys{acct: base + "acct", holds: base + "holds", holdexp: base + "holdexp", day: base + "day:" + day, tag: tag,
		dayEnd: start.Add(24*time.Hour + dayGrace)}
}

// Reservation IDs carry their principal's tag, so that any instance can
// settle one without a lookup: "h.TAG.UUID" holds bytes in the store;
// "u.TAG.UUID" was handed out while the store could not be asked and holds
// nothing, but its job is still charged when settled.
func reservationID(held bool, tag string) string {
	kind := "h"
	if !held {
		kind = "u"
	}
	return kind + "." + tag + "." + uuid.NewString()
}

func parseReservation(id string) (held bool, tag string, ok bool) {
	kind, rest, ok1 := strings.Cut(id, ".")
	tag, _, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || (kind != "h" && kind != "u") || len(tag) != 16 {
		return false, "", false
	}
	return kind == "h", tag, true
}

// luaPrune ends the holds of principal that lapsed, charging each its
// estimate (its job's cost is unknown, and the estimate is the best word
// on it, as the follower decides after 24 hours), and luaTouch renews the
// TTLs. KEYS: acct, holds, holdexp, day. ARGV[1] now (ms), ARGV[2] the
// day's end (ms), ARGV[3] the account TTL (ms).
const luaCommon = `
local acct, holds, holdexp, day = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, dayend, acctttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local function charge(jobs, proc, billed)
  redis.call('HINCRBY', acct, 's_jobs', jobs)
  redis.call('HINCRBY', acct, 's_proc', proc)
  redis.call('HINCRBY', acct, 's_billed', billed)
  redis.call('HINCRBY', day, 'jobs', jobs)
  redis.call('HINCRBY', day, 'proc', proc)
  redis.call('HINCRBY', day, 'billed', billed)
  redis.call('PEXPIREAT', day, dayend)
end
local function touch()
  redis.call('PEXPIRE', acct, acctttl)
  redis.call('PEXPIRE', holds, acctttl)
  redis.call('PEXPIRE', holdexp, acctttl)
end
local lapsed = redis.call('ZRANGEBYSCORE', holdexp, '-inf', now)
for _, id in ipairs(lapsed) do
  local b = tonumber(redis.call('HGET', holds, id) or '0')
  if redis.call('HDEL', holds, id) == 1 then
    redis.call('HINCRBY', acct, 'held', -b)
    charge(1, b, b)
  end
  redis.call('ZREM', holdexp, id)
end
local function num(key, field) return tonumber(redis.call('HGET', key, field) or '0') end
`

// reserveScript holds bytes when they fit. ARGV[4] id, [5] bytes, [6] when
// the hold lapses, [7] per-session limit, [8] per-day limit (0: none). A
// retry of a reserve that already succeeded finds its hold and succeeds.
// Returns {granted, left, held}; left is -1 without limits.
var reserveScript = redis.NewScript(luaCommon + `
local id, bytes, lapse = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local persession, perday = tonumber(ARGV[7]), tonumber(ARGV[8])
local held = num(acct, 'held')
local left = -1
if persession > 0 then left = math.max(0, persession - num(acct, 's_billed') - held) end
if perday > 0 then
  local d = math.max(0, perday - num(day, 'billed') - held)
  if left < 0 or d < left then left = d end
end
if redis.call('HEXISTS', holds, id) == 1 then return {1, left, held} end
if left >= 0 and bytes > left then
  touch()
  return {0, left, held}
end
redis.call('HSET', holds, id, bytes)
redis.call('ZADD', holdexp, lapse, id)
redis.call('HINCRBY', acct, 'held', bytes)
touch()
return {1, left, held + bytes}
`)

// settleScript ends a reservation and charges its job. ARGV[4] id, [5]
// jobs, [6] bytes processed, [7] billed, [8] "1" for an unheld
// reservation, [9] the marker's TTL (ms). KEYS[5] is the marker of an
// unheld reservation. Returns 1 when this call charged the job.
var settleScript = redis.NewScript(luaCommon + `
local id = ARGV[4]
if ARGV[8] == '1' then
  if not redis.call('SET', KEYS[5], '1', 'NX', 'PX', tonumber(ARGV[9])) then return 0 end
else
  local b = redis.call('HGET', holds, id)
  if not b then return 0 end
  redis.call('HDEL', holds, id)
  redis.call('ZREM', holdexp, id)
  redis.call('HINCRBY', acct, 'held', -tonumber(b))
end
charge(tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]))
touch()
return 1
`)

// releaseScript ends a reservation whose job never started. ARGV[4] id.
// Returns 1 when this call released it.
var releaseScript = redis.NewScript(luaCommon + `
local b = redis.call('HGET', holds, ARGV[4])
if not b then return 0 end
redis.call('HDEL', holds, ARGV[4])
redis.call('ZREM', holdexp, ARGV[4])
redis.call('HINCRBY', acct, 'held', -tonumber(b))
touch()
return 1
`)

// readScript returns the session's and the day's jobs, processed and
// billed, and what is held, after lapsed holds are charged.
var readScript = redis.NewScript(luaCommon + `
return {num(acct, 's_jobs'), num(acct, 's_proc'), num(acct, 's_billed'),
  num(day, 'jobs'), num(day, 'proc'), num(day, 'billed'), num(acct, 'held')}
`)

func (k budgetKeys) list(extra ...string) []string {
	return append([]string{k.acct, k.holds, k.holdexp, k.day}, extra...)
}

func (k budgetKeys) args(now time.Time, extra ...any) []any {
	return append([]any{now.UnixMilli(), k.dayEnd.UnixMilli(), accountTTL.Milliseconds()}, extra...)
}

// step runs one store step under the retry policy and breaker, measured.
func (r *Redis) step(ctx context.Context, name string, fn func(context.Context) error) error {
	start := time.Now()
	err := r.cfg.Do(ctx, func(ctx context.Context) error { return storeError(fn(ctx)) })
	if r.cfg.Hooks.Step != nil {
		r.cfg.Hooks.Step(ctx, name, time.Since(start), err)
	}
	return err
}

// storeError classifies what the client returned: any failure of the
// store (no connection, a timeout, a full or read-only Redis during a
// failover) is a retryable UNAVAILABLE, which the breaker counts.
func storeError(err error) error {
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, context.Canceled) {
		return err
	}
	if _, ok := bqerr.As(err); ok {
		return err
	}
	return bqerr.New(bqerr.Unavailable, StoreName+" did not answer").WithCause(err)
}

// unavailable is what a budget step that fails closed answers: retryable,
// naming the store, with the breaker's wait when it gave one.
func unavailable(err error) error {
	e := bqerr.New(bqerr.Unavailable, StoreName+" cannot be reached, so the bytes budget cannot be checked: no query runs unaccounted").
		WithHint("The server keeps budgets and job records in Redis, shared by its instances. Try again in a few seconds; if it persists, the operators should check Redis (health reports it).").
		WithCause(err)
	if be, ok := bqerr.As(err); ok && be.RetryAfterSeconds != nil {
		e = e.WithRetryAfter(*be.RetryAfterSeconds)
	}
	return e
}

// openFallback decides a failed budget step: fail closed with the store's
// error, or (fail open, or nothing limited) go on uncounted.
func (r *Redis) openFallback(ctx context.Context, name string, err error) bool {
	if errors.Is(err, context.Canceled) || (!r.cfg.FailOpen && r.Limited()) {
		return false
	}
	r.log.WarnContext(ctx, "shared state store unavailable: going on without the budget", "step", name, "error", bqerr.Redact(err.Error()))
	if r.cfg.Hooks.FailedOpen != nil {
		r.cfg.Hooks.FailedOpen(ctx, name)
	}
	return true
}

// Check implements State.
func (r *Redis) Check(ctx context.Context, principal string, estimate int64) error {
	if !r.Limited() {
		return nil
	}
	u, err := r.read(ctx, principal)
	if err != nil {
		if r.openFallback(ctx, "read", err) {
			return nil
		}
		return unavailable(err)
	}
	left := limitsLeft(r.cfg.PerSession, r.cfg.PerDay, u.Session.BytesBilled, u.Today.BytesBilled, u.Reserved)
	if estimate <= left {
		return nil
	}
	return exhausted(estimate, left, u.Reserved, r.cfg.PerSession, r.cfg.PerDay)
}

// Reserve implements State. The reservation's ID is chosen before the
// first attempt, so a retry of an attempt whose answer was lost finds its
// hold instead of holding twice.
func (r *Redis) Reserve(ctx context.Context, principal string, bytes int64) (string, error) {
	tag := principalTag(principal)
	id := reservationID(true, tag)
	bytes = max(bytes, 0)
	var granted, left, held int64
	sent := false
	err := r.step(ctx, "reserve", func(ctx context.Context) error {
		sent = true
		now := r.now()
		k := r.keys(tag)
		res, err := reserveScript.Run(ctx, r.client, k.list(), k.args(now, id, bytes, now.Add(holdTTL).UnixMilli(), r.cfg.PerSession, r.cfg.PerDay)...).Int64Slice()
		if err != nil {
			return err
		}
		if len(res) != 3 {
			return fmt.Errorf("reserve script answered %v", res)
		}
		granted, left, held = res[0], res[1], res[2]
		return nil
	})
	if err != nil {
		if sent {
			// An attempt whose answer was lost may still have held the
			// bytes (a stalled Redis runs it when it wakes): give them
			// back once the store answers, or they would lapse into a
			// charge for a job that never ran.
			r.later(ctx, "release", err, func(ctx context.Context) error { return r.release(ctx, id, tag) })
		}
		if r.openFallback(ctx, "reserve", err) {
			return reservationID(false, tag), nil
		}
		return "", unavailable(err)
	}
	if granted == 0 {
		return "", exhausted(bytes, left, held, r.cfg.PerSession, r.cfg.PerDay)
	}
	return id, nil
}

// Settle implements State. A settlement the store does not take is kept
// and made again when it answers; it reports false then.
func (r *Redis) Settle(ctx context.Context, reservation string, u Usage) (bool, error) {
	held, tag, ok := parseReservation(reservation)
	if !ok {
		return false, nil
	}
	settle := func(ctx context.Context) (bool, error) {
		var done bool
		err := r.step(ctx, "settle", func(ctx context.Context) error {
			now := r.now()
			k := r.keys(tag)
			unheld := "0"
			if !held {
				unheld = "1"
			}
			n, err := settleScript.Run(ctx, r.client, k.list(r.cfg.Prefix+"{"+tag+"}:done:"+reservation),
				k.args(now, reservation, u.Jobs, u.BytesProcessed, u.BytesBilled, unheld, holdTTL.Milliseconds())...).Int64()
			done = n == 1
			return err
		})
		return done, err
	}
	done, err := settle(ctx)
	if err != nil {
		r.later(ctx, "settle", err, func(ctx context.Context) error { _, err := settle(ctx); return err })
		return false, nil
	}
	return done, nil
}

// Release implements State.
func (r *Redis) Release(ctx context.Context, reservation string) error {
	held, tag, ok := parseReservation(reservation)
	if !ok || !held {
		return nil
	}
	if err := r.release(ctx, reservation, tag); err != nil {
		r.later(ctx, "release", err, func(ctx context.Context) error { return r.release(ctx, reservation, tag) })
	}
	return nil
}

func (r *Redis) release(ctx context.Context, reservation, tag string) error {
	return r.step(ctx, "release", func(ctx context.Context) error {
		k := r.keys(tag)
		return releaseScript.Run(ctx, r.client, k.list(), k.args(r.now(), reservation)...).Err()
	})
}

// read is a principal's account, lapsed holds charged.
func (r *Redis) read(ctx context.Context, principal string) (Report, error) {
	var rep Report
	err := r.step(ctx, "read", func(ctx context.Context) error {
		k := r.keys(principalTag(principal))
		v, err := readScript.Run(ctx, r.client, k.list(), k.args(r.now())...).Int64Slice()
		if err != nil {
			return err
		}
		if len(v) != 7 {
			return fmt.Errorf("read script answered %v", v)
		}
		rep = Report{Session: Usage{Jobs: v[0], BytesProcessed: v[1], BytesBilled: v[2]}, Today: Usage{Jobs: v[3], BytesProcessed: v[4], BytesBilled: v[5]}, Reserved: v[6]}
		return nil
	})
	return rep, err
}

// Report implements State.
func (r *Redis) Report(ctx context.Context, principal string) (Report, error) {
	rep, err := r.read(ctx, principal)
	if err != nil {
		return Report{}, unavailable(err)
	}
	rep.SessionLimit, rep.DayLimit = r.cfg.PerSession, r.cfg.PerDay
	if r.Limited() {
		left := limitsLeft(r.cfg.PerSession, r.cfg.PerDay, rep.Session.BytesBilled, rep.Today.BytesBilled, rep.Reserved)
		rep.Left = &left
	}
	return rep, nil
}

// jobKey is a job record's key. Job records are not per principal (the
// lookup is by job ID alone), so they carry no hash tag.
func (r *Redis) jobKey(id string) string { return r.cfg.Prefix + "job:" + id }

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
				p.HSet(ctx, key, "p", j.Principal, "l", j.Location, "v", view, "r", j.Reservation, "t", j.Started.UnixMilli())
				// Kept twice its lifetime, so that its owner learns it
				// expired rather than that it never was.
				p.PExpireAt(ctx, key, j.Started.Add(2*r.cfg.JobTTL))
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
		rec = JobRecord{ID: id, Principal: m["p"], Location: m["l"], ThroughView: m["v"] == "1", Reservation: m["r"], Started: time.UnixMilli(ms)}
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
// left or the state is closed: every second while the store fails, and
// through the same breaker as every other step, so a Redis that is down
// is not hammered.
//
// done is this goroutine's own channel: a later goroutine gets another.
func (r *Redis) retryPending(done chan struct{}) {
	defer close(done)
	wait := time.Second
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

// RedisURL is a parsed --state value, with the password and TLS settings
// that go with it.
type RedisURL struct {
	// PasswordFile, when set, holds the password (Memorystore's AUTH
	// string, from Secret Manager) instead of the URL.
	PasswordFile string
	// CAFile, when set, is the PEM bundle the server's certificate is
	// checked against (Memorystore's server CA for in-transit encryption).
	CAFile string
}

// IsRedisURL reports whether s names a Redis store rather than memory.
func IsRedisURL(s string) bool {
	return strings.HasPrefix(s, "redis://") || strings.HasPrefix(s, "rediss://")
}

// RedactURL is a Redis URL fit for logs and health: no password.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "redis://(unparsable)"
	}
	return u.Redacted()
}

// NewRedisClient parses a redis:// or rediss:// URL (rediss: TLS) into a
// client. The password comes from the URL or, when set, from
// o.PasswordFile; the CA bundle from o.CAFile. No connection is made.
func NewRedisClient(rawURL string, o RedisURL) (*redis.Client, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		// The parser's message may quote the URL, password included.
		return nil, fmt.Errorf("state: %s is not a redis:// or rediss:// URL", RedactURL(rawURL))
	}
	if o.PasswordFile != "" {
		b, err := os.ReadFile(o.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("state password file: %w", err)
		}
		opts.Password = strings.TrimSpace(string(b))
	}
	if o.CAFile != "" {
		if opts.TLSConfig == nil {
			return nil, errors.New("a state CA file needs a rediss:// URL (TLS)")
		}
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("state CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("state CA file %s holds no PEM certificate", o.CAFile)
		}
		opts.TLSConfig.RootCAs = pool
		if opts.TLSConfig.MinVersion == 0 {
			opts.TLSConfig.MinVersion = tls.VersionTLS12
		}
	}
	// Short timeouts: a budget step waits on the store before every query,
	// and the retry policy and breaker decide what a slow store means.
	opts.DialTimeout = 2 * time.Second
	opts.ReadTimeout = time.Second
	opts.WriteTimeout = time.Second
	// resilience retries (and its breaker decides when to stop), so the
	// client makes one attempt and one dial.
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
		return nil, fmt.Errorf("state: %s has no host:port", RedactURL(rawURL))
	}
	return redis.NewClient(opts), nil
}

// quiet silences go-redis's own log lines (plain text on stderr, outside
// the server's JSON log); the state logs what matters itself.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once
