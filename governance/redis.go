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
//	P{H}:acct         hash: the session's jobs, bytes processed and billed,
//	                  micro-USD and jobs of unknown cost (s_*), and what
//	                  running jobs hold (held, heldusd); 48 h after last use
//	P{H}:day:DATE     hash: the UTC day's jobs, processed, billed, micro-USD
//	                  (usd) and jobs of unknown cost (unpriced); ends with
//	                  the day (+1 h)
//	P{H}:holds        hash: reservation ID → "bytes:micro-USD" held
//	P{H}:holdexp      sorted set: reservation ID → when the hold lapses (25 h)
//	P{H}:ended        sorted set: held reservation ID → when it is forgotten,
//	                  25 h after it was settled, released or lapsed
//	P{H}:done:ID      marker of an unheld reservation already charged (25 h)
//	Pjob:JOBID        hash: the job record (principal, location, verdict,
//	                  reservation, start); 48 h, served for 24 h
//
// Fields are only ever added to these hashes, and a field that is absent
// reads 0: instances of different versions can share one Redis during a
// rolling deploy. A job settled by a version that did not write a cost
// field (s_usd, s_unpriced, unpriced) is in the bytes and jobs but not in
// the dollars.
//
// When Redis cannot be asked, the budget steps fail closed (a retryable
// UNAVAILABLE that names the store) unless FailOpen is set or no limit is
// configured; settlements, releases and job records that could not be
// written are kept and written again when it answers (each is idempotent,
// so nothing is charged twice), and a job recorded meanwhile stays
// readable, by its owner, on the instance that started it. So fail-open
// means "do not block during the outage", not "forget what was spent":
// a query that ran meanwhile holds nothing (its reservation is unheld,
// "u."), and its job's cost is charged when the store answers, before
// the instance checks a budget against the store again (redis_outage.go). A Redis
// that comes back without some holds (restarted empty, or from a snapshot
// older than them) still charges the jobs that settle them: a settlement
// that finds neither the hold nor its end charges the job.

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
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
	// StatePrefix (--state-prefix) namespaces the keys (default
	// DefaultRedisPrefix).
	StatePrefix string
	// Limits are the limits in bytes billed; zero: none.
	Limits
	// USD prices every job the ledger counts (usage's costs, with or
	// without a limit) and the dollar budget (Limits.MaxUSDPerDay, which
	// sets its PerDay). Zero: no job has a known cost.
	USD USDLimit
	// StateFailOpen (--state-fail-open) lets queries run while the store
	// cannot be asked, without a budget check; their jobs are charged when
	// it answers again (their settlements are kept). By default budgets
	// fail closed.
	StateFailOpen bool
	// JobTTL is how long a job record is served (default JobRecordTTL).
	JobTTL time.Duration
	// RetryEvery is how often the store is probed in the background while
	// it is down, and the writes kept meanwhile made again once it answers
	// (default one second). Tests shorten it so that an outage they stage
	// ends without waiting on a real clock.
	RetryEvery time.Duration
	// Do runs one step under the store's retry policy and circuit breaker
	// (the wiring passes resilience's); nil runs it once.
	Do func(ctx context.Context, fn func(context.Context) error) error
	// Recovered is called when a probe found the store answering again
	// after it failed, and what this instance kept through the outage is
	// written: the wiring closes the store's breaker, so that steps go
	// through Do at once rather than after the rest of its open time.
	Recovered func()
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
	// query ran without a budget check (--state-fail-open, or no limit
	// set); its cost is charged when the store answers again.
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
	// down is set when a step failed, until a probe finds the store
	// answering and the pending writes written (redis_outage.go); probed
	// is when the last probe was made, by the state's clock; flushing is
	// set while a reconcile writes the pending writes.
	down     bool
	probed   time.Time
	flushing bool
	running  bool
	closed   bool
	stop     chan struct{}
	done     chan struct{}
	// flushMu lets one reconcile, or Close, write the pending writes at a
	// time.
	flushMu sync.Mutex
}

// pendingWrite is a write the store did not take, to try again.
type pendingWrite struct {
	what string
	fn   func(context.Context) error
}

// NewRedis returns State kept in Redis. It does not connect: Ping checks
// that the store answers.
func NewRedis(cfg RedisConfig) *Redis {
	if cfg.StatePrefix == "" {
		cfg.StatePrefix = DefaultRedisPrefix
	}
	if cfg.JobTTL <= 0 {
		cfg.JobTTL = JobRecordTTL
	}
	if cfg.RetryEvery <= 0 {
		cfg.RetryEvery = time.Second
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

// FailOpen reports whether queries run without a budget check while the
// store is down.
func (r *Redis) FailOpen() bool { return r.cfg.StateFailOpen }

// Pending is how many writes wait for the store to answer again.
func (r *Redis) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// Close stops retrying pending writes, gives them one last try, oldest
// first (within a few seconds in all, and past the breaker: an instance
// stopped soon after the store came back must not drop what it owes
// because its breaker has not closed yet; the first write the store does
// not take ends the try), logs those the store still did not take, and
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
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	pending := r.pending
	r.pending = nil
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), directKey{}, true), 5*time.Second)
	defer cancel()
	lost := 0
	for _, p := range pending {
		if lost > 0 || ctx.Err() != nil || p.fn(ctx) != nil {
			lost++
		}
	}
	if lost > 0 {
		r.log.Warn("state writes lost at shutdown: the shared state store did not take them", "writes", lost)
	}
	return r.client.Close()
}
