package governance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Limited implements State.
func (r *Redis) Limited() bool {
	return r.cfg.MaxBytesPerSession > 0 || r.cfg.MaxBytesPerDay > 0 || r.usd().perDayMicro() > 0
}

// usd is the dollar budget: RedisConfig.USD with the limit of
// MaxUSDPerDay.
func (r *Redis) usd() USDLimit {
	l := r.cfg.USD
	l.PerDay = r.cfg.MaxUSDPerDay
	return l
}

// limitedBytes reports whether a bytes limit is set.
func (r *Redis) limitedBytes() bool { return r.cfg.MaxBytesPerSession > 0 || r.cfg.MaxBytesPerDay > 0 }

// principalTag is the hash tag of principal's keys: a digest, so that
// key names carry no e-mail or token, and one tag so that a step's keys
// sit in one Redis Cluster slot.
func principalTag(principal string) string {
	sum := sha256.Sum256([]byte(principal))
	return hex.EncodeToString(sum[:8])
}

// keys are one principal's budget keys for the day of now.
type budgetKeys struct {
	acct, holds, holdexp, day, ended, tag string
	dayEnd                                time.Time
}

func (r *Redis) keys(tag string) budgetKeys {
	now := r.now().UTC()
	base := r.cfg.StatePrefix + "{" + tag + "}:"
	day := now.Format(time.DateOnly)
	start, _ := time.Parse(time.DateOnly, day)
	return budgetKeys{acct: base + "acct", holds: base + "holds", holdexp: base + "holdexp", day: base + "day:" + day, ended: base + "ended", tag: tag,
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

// luaCommon opens every budget script: it ends the holds of principal
// that lapsed, charging each its estimate (its job's cost is unknown, and
// the estimate is the best word on it, as the follower decides after 24
// hours), and forgets ended reservations older than their marker's life;
// touch renews the TTLs. KEYS: acct, holds, holdexp, day, ended. ARGV[1]
// now (ms), ARGV[2] the day's end (ms), ARGV[3] the account TTL (ms),
// ARGV[4] how long an ended reservation is remembered (ms). Every time is
// the calling instance's: a day key's TTL is the rest of its day by that
// clock (PEXPIRE, not PEXPIREAT), so Redis's own clock decides nothing
// and an instance, or a test's fake clock, never writes a key Redis
// already thinks expired.
//
// ended remembers every held reservation that was settled, released or
// lapsed (a sorted set: ID → when it is forgotten). That is how a settle
// that finds no hold tells a reservation already ended (charge nothing)
// from one whose hold the store lost (a Redis that came back empty, or
// from a snapshot older than the hold): the job still ran, and is charged.
// It also keeps a reserve that reaches Redis after its release (a stalled
// Redis running a lost attempt when it wakes) from holding bytes again.
//
// held never goes below zero, whatever the store lost or evicted: it is
// what running jobs hold, and a negative one would be reported as such.
const luaCommon = `
local acct, holds, holdexp, day, ended = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local now, dayend, acctttl, endttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
-- charge counts a job's cost in the session's account and the day's;
-- usd is micro-USD, unpriced the jobs whose cost is unknown.
local function charge(jobs, proc, billed, usd, unpriced)
  redis.call('HINCRBY', acct, 's_jobs', jobs)
  redis.call('HINCRBY', acct, 's_proc', proc)
  redis.call('HINCRBY', acct, 's_billed', billed)
  redis.call('HINCRBY', day, 'jobs', jobs)
  redis.call('HINCRBY', day, 'proc', proc)
  redis.call('HINCRBY', day, 'billed', billed)
  if usd > 0 then
    redis.call('HINCRBY', acct, 's_usd', usd)
    redis.call('HINCRBY', day, 'usd', usd)
  end
  if unpriced > 0 then
    redis.call('HINCRBY', acct, 's_unpriced', unpriced)
    redis.call('HINCRBY', day, 'unpriced', unpriced)
  end
  redis.call('PEXPIRE', day, math.max(1, dayend - now))
end
local function touch()
  redis.call('PEXPIRE', acct, acctttl)
  redis.call('PEXPIRE', holds, acctttl)
  redis.call('PEXPIRE', holdexp, acctttl)
  redis.call('PEXPIRE', ended, acctttl)
end
local function unhold(b, u)
  if redis.call('HINCRBY', acct, 'held', -b) < 0 then redis.call('HSET', acct, 'held', 0) end
  if u > 0 and redis.call('HINCRBY', acct, 'heldusd', -u) < 0 then redis.call('HSET', acct, 'heldusd', 0) end
end
-- hold reads a hold's value: "bytes" or "bytes:micro-USD".
local function hold(v)
  local b, u = string.match(v, '^(%-?%d+):?(%d*)$')
  return tonumber(b) or 0, tonumber(u) or 0
end
local function finish(id)
  redis.call('ZADD', ended, now + endttl, id)
end
-- endhold ends id's hold when there is one and returns its bytes and
-- micro-USD (false when there was none); either way id is remembered as
-- ended.
local function endhold(id)
  local v = redis.call('HGET', holds, id)
  local b, u
  if v then
    b, u = hold(v)
    redis.call('HDEL', holds, id)
    unhold(b, u)
  end
  redis.call('ZREM', holdexp, id)
  finish(id)
  return b, u
end
local lapsed = redis.call('ZRANGEBYSCORE', holdexp, '-inf', now)
for _, id in ipairs(lapsed) do
  local b, u = endhold(id)
  if b then charge(1, b, b, u, 0) end
end
redis.call('ZREMRANGEBYSCORE', ended, '-inf', now)
local function num(key, field) return math.max(0, tonumber(redis.call('HGET', key, field) or '0')) end
`

// reserveScript holds bytes (and their price, micro-USD) when they fit.
// ARGV[5] id, [6] bytes, [7] when the hold lapses, [8] per-session limit,
// [9] per-day limit (0: none), [10] the hold's micro-USD, [11] the dollar
// limit per day in micro-USD (0: none). A retry of a reserve that already
// succeeded finds its hold and succeeds; one whose reservation already
// ended (released after its answer was lost) holds nothing. Returns
// {granted, left, held, usdleft, usdheld}; left and usdleft are -1
// without their limits. A dollar limit refuses a hold above what is left,
// and any hold once nothing is (fitsUSD).
var reserveScript = redis.NewScript(luaCommon + `
local id, bytes, lapse = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local persession, perday = tonumber(ARGV[8]), tonumber(ARGV[9])
local usd, perdayusd = tonumber(ARGV[10]), tonumber(ARGV[11])
local held, heldusd = num(acct, 'held'), num(acct, 'heldusd')
local left, usdleft = -1, -1
if persession > 0 then left = math.max(0, persession - num(acct, 's_billed') - held) end
if perday > 0 then
  local d = math.max(0, perday - num(day, 'billed') - held)
  if left < 0 or d < left then left = d end
end
if perdayusd > 0 then usdleft = math.max(0, perdayusd - num(day, 'usd') - heldusd) end
if redis.call('HEXISTS', holds, id) == 1 then return {1, left, held, usdleft, heldusd} end
if redis.call('ZSCORE', ended, id) then return {0, left, held, usdleft, heldusd} end
if (left >= 0 and bytes > left) or (usdleft >= 0 and (usd > usdleft or usdleft == 0)) then
  touch()
  return {0, left, held, usdleft, heldusd}
end
redis.call('HSET', holds, id, ARGV[6] .. ':' .. ARGV[10])
redis.call('ZADD', holdexp, lapse, id)
redis.call('HSET', acct, 'held', held + bytes)
redis.call('HSET', acct, 'heldusd', heldusd + usd)
touch()
return {1, left, held + bytes, usdleft, heldusd + usd}
`)

// settleScript ends a reservation and charges its job, once. ARGV[5] id,
// [6] jobs, [7] bytes processed, [8] billed, [9] "1" for an unheld
// reservation, [10] the settled job for the principal's list of last
// jobs ("" for none), [11] that list's length, [12] its TTL (ms), [13]
// its cost in micro-USD, [14] how many of its jobs have no known cost
// (Usage.Unpriced). KEYS[6]
// is the marker of an unheld reservation (it lives as long as an ended one
// is remembered), KEYS[7] the list: written in the same step as the
// charge, so a job is listed once, when it is charged. A held reservation is charged
// when its hold is found, and also when neither its hold nor its end is:
// the store lost the hold, not the job's cost. Returns 1 when this call
// charged the job.
var settleScript = redis.NewScript(luaCommon + `
local id = ARGV[5]
if ARGV[9] == '1' then
  if not redis.call('SET', KEYS[6], '1', 'NX', 'PX', endttl) then return 0 end
elseif redis.call('HEXISTS', holds, id) == 0 and redis.call('ZSCORE', ended, id) then
  return 0
else
  endhold(id)
end
charge(tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[13]), tonumber(ARGV[14]))
touch()
if ARGV[10] ~= '' then
  redis.call('LPUSH', KEYS[7], ARGV[10])
  redis.call('LTRIM', KEYS[7], 0, tonumber(ARGV[11]) - 1)
  redis.call('PEXPIRE', KEYS[7], tonumber(ARGV[12]))
end
return 1
`)

// releaseScript ends a reservation whose job never started. ARGV[5] id.
// A release that finds no hold still marks the reservation ended, so that
// a reserve of it arriving later holds nothing. Returns 1 when this call
// freed a hold.
var releaseScript = redis.NewScript(luaCommon + `
local b = endhold(ARGV[5])
touch()
if b then return 1 end
return 0
`)

// readScript returns the session's and the day's jobs, processed and
// billed, what is held, the day's and the held micro-USD, and the
// session's micro-USD, unpriced jobs and the day's unpriced jobs, after
// lapsed holds are charged. A field an older version did not write
// (s_usd, s_unpriced, unpriced) reads 0.
var readScript = redis.NewScript(luaCommon + `
return {num(acct, 's_jobs'), num(acct, 's_proc'), num(acct, 's_billed'),
  num(day, 'jobs'), num(day, 'proc'), num(day, 'billed'), num(acct, 'held'),
  num(day, 'usd'), num(acct, 'heldusd'),
  num(acct, 's_usd'), num(acct, 's_unpriced'), num(day, 'unpriced')}
`)

func (k budgetKeys) list(extra ...string) []string {
	return append([]string{k.acct, k.holds, k.holdexp, k.day, k.ended}, extra...)
}

func (k budgetKeys) args(now time.Time, extra ...any) []any {
	return append([]any{now.UnixMilli(), k.dayEnd.UnixMilli(), accountTTL.Milliseconds(), endedTTL.Milliseconds()}, extra...)
}

// endedTTL is how long an ended reservation is remembered (and an unheld
// one's marker kept): as long as a hold may last, so that a settlement
// made again (another tool saw the job end, a write kept through an
// outage) finds it.
const endedTTL = holdTTL

// directKey marks a context whose steps bypass the retry policy and
// breaker (Close's last try).
type directKey struct{}

// step runs one store step under the retry policy and breaker, measured.
func (r *Redis) step(ctx context.Context, name string, fn func(context.Context) error) error {
	start := time.Now()
	do := r.cfg.Do
	if ctx.Value(directKey{}) != nil {
		do = func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }
	}
	err := do(ctx, func(ctx context.Context) error { return storeError(fn(ctx)) })
	if r.cfg.Hooks.Step != nil {
		r.cfg.Hooks.Step(ctx, name, time.Since(start), err)
	}
	if err != nil && !errors.Is(err, redis.Nil) && !errors.Is(err, context.Canceled) {
		r.markDown()
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
	if errors.Is(err, context.Canceled) || (!r.cfg.StateFailOpen && r.Limited()) {
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
	if !r.available(ctx, false) {
		if r.openFallback(ctx, "read", downError()) {
			return nil
		}
		return unavailable(downError())
	}
	u, err := r.read(ctx, principal)
	if err != nil {
		if r.openFallback(ctx, "read", err) {
			return nil
		}
		return unavailable(err)
	}
	if r.limitedBytes() {
		left := limitsLeft(r.cfg.MaxBytesPerSession, r.cfg.MaxBytesPerDay, u.Session.BytesBilled, u.Today.BytesBilled, u.Reserved)
		if estimate > left {
			return exhausted(estimate, left, u.Reserved, r.cfg.MaxBytesPerSession, r.cfg.MaxBytesPerDay)
		}
	}
	return fitsUSD(r.usd(), r.usd().hold(estimate), u.Today.MicroUSD, u.reservedMicroUSD)
}

// Reserve implements State. The reservation's ID is chosen before the
// first attempt, so a retry of an attempt whose answer was lost finds its
// hold instead of holding twice.
func (r *Redis) Reserve(ctx context.Context, principal string, bytes int64) (string, error) {
	tag := principalTag(principal)
	id := reservationID(true, tag)
	bytes = max(bytes, 0)
	micro := r.usd().hold(bytes)
	if !r.available(ctx, false) {
		// Down: nothing is asked of the store (or its breaker) until a
		// probe finds it answering and what was kept is written.
		if r.openFallback(ctx, "reserve", downError()) {
			return reservationID(false, tag), nil
		}
		return "", unavailable(downError())
	}
	var granted, left, held, usdLeft, usdHeld int64
	sent := false
	err := r.step(ctx, "reserve", func(ctx context.Context) error {
		sent = true
		now := r.now()
		k := r.keys(tag)
		res, err := reserveScript.Run(ctx, r.client, k.list(), k.args(now, id, bytes, now.Add(holdTTL).UnixMilli(), r.cfg.MaxBytesPerSession, r.cfg.MaxBytesPerDay,
			micro, r.usd().perDayMicro())...).Int64Slice()
		if err != nil {
			return err
		}
		if len(res) != 5 {
			return fmt.Errorf("reserve script answered %v", res)
		}
		granted, left, held, usdLeft, usdHeld = res[0], res[1], res[2], res[3], res[4]
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
		if left >= 0 && bytes > left {
			return "", exhausted(bytes, left, held, r.cfg.MaxBytesPerSession, r.cfg.MaxBytesPerDay)
		}
		return "", usdExhausted(micro, max(usdLeft, 0), usdHeld, r.cfg.MaxUSDPerDay)
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
	u = r.usd().priced(u)
	settle := func(ctx context.Context) (bool, error) {
		var done bool
		err := r.step(ctx, "settle", func(ctx context.Context) error {
			now := r.now()
			k := r.keys(tag)
			unheld := "0"
			if !held {
				unheld = "1"
			}
			n, err := settleScript.Run(ctx, r.client, k.list(r.cfg.StatePrefix+"{"+tag+"}:done:"+reservation, r.recentKey(tag)),
				k.args(now, reservation, u.Jobs, u.BytesProcessed, u.BytesBilled, unheld, encodeFinished(u, now), MaxRecentJobs, r.cfg.JobTTL.Milliseconds(), u.MicroUSD, u.Unpriced)...).Int64()
			done = n == 1
			return err
		})
		return done, err
	}
	again := func(ctx context.Context) error { _, err := settle(ctx); return err }
	if !r.available(ctx, false) && r.keepIfDown(ctx, "settle", again) {
		return false, nil
	}
	done, err := settle(ctx)
	if err != nil {
		r.later(ctx, "settle", err, again)
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
	again := func(ctx context.Context) error { return r.release(ctx, reservation, tag) }
	if !r.available(ctx, false) && r.keepIfDown(ctx, "release", again) {
		return nil
	}
	if err := again(ctx); err != nil {
		r.later(ctx, "release", err, again)
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
		if len(v) != 12 {
			return fmt.Errorf("read script answered %v", v)
		}
		rep = Report{Session: Usage{Jobs: v[0], BytesProcessed: v[1], BytesBilled: v[2], MicroUSD: v[9], Unpriced: v[10]},
			Today:    Usage{Jobs: v[3], BytesProcessed: v[4], BytesBilled: v[5], MicroUSD: v[7], Unpriced: v[11]},
			Reserved: v[6], reservedMicroUSD: v[8]}
		return nil
	})
	return rep, err
}

// Report implements State. While the store is down every Report probes
// it: usage answers as soon as the store does, with what this instance
// kept through the outage already written.
func (r *Redis) Report(ctx context.Context, principal string) (Report, error) {
	if !r.available(ctx, true) {
		return Report{}, unavailable(downError())
	}
	rep, err := r.read(ctx, principal)
	if err != nil {
		return Report{}, unavailable(err)
	}
	rep.SessionLimit, rep.DayLimit = r.cfg.MaxBytesPerSession, r.cfg.MaxBytesPerDay
	if r.limitedBytes() {
		left := limitsLeft(r.cfg.MaxBytesPerSession, r.cfg.MaxBytesPerDay, rep.Session.BytesBilled, rep.Today.BytesBilled, rep.Reserved)
		rep.Left = &left
	}
	rep.withUSD(r.usd(), rep.Today.MicroUSD, rep.reservedMicroUSD)
	return rep, nil
}
