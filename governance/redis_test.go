package governance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
)

// clock is a settable time for both backends.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// backend builds State with the given limits and dollar pricing on a
// clock; shared returns a second State that sees the same budgets and jobs
// (another instance of the fleet), or the same one where there is only
// one process.
type backend struct {
	name  string
	build func(t *testing.T, l Limits, usd USDLimit, c *clock) (st State, shared func() State)
}

// bytesLimits are the bytes budgets per session and per day, nothing else.
func bytesLimits(perSession, perDay int64) Limits {
	return Limits{MaxBytesPerSession: perSession, MaxBytesPerDay: perDay}
}

// redisServer is the one redis-server of this test binary's contract
// tests; each test gets its own key prefix.
var (
	redisOnce sync.Once
	redisSrv  *redistest.Server
)

func sharedRedis(t *testing.T) *redistest.Server {
	t.Helper()
	redisOnce.Do(func() { redisSrv = redistest.Start(&keepAlive{t}) })
	if redisSrv == nil {
		redisOnce = sync.Once{}
		redistest.Start(t) // skips, or fails under BQMCP_REQUIRE_CLIENTS
	}
	return redisSrv
}

// keepAlive lets the shared server outlive the test that started it: its
// Cleanup never runs (the process ends with the test binary, and TestMain
// stops it).
type keepAlive struct{ *testing.T }

func (k *keepAlive) Cleanup(func()) {}

func TestMain(m *testing.M) {
	code := m.Run()
	if redisSrv != nil {
		redisSrv.Stop()
	}
	os.Exit(code)
}

var prefixes atomic.Int64

// testRetryEvery is how often a test's state tries its kept writes again:
// a staged outage ends in milliseconds, not the server's second.
const testRetryEvery = 10 * time.Millisecond

// newRedisState is State on the server's client settings (NewRedisClient),
// trying kept writes again every testRetryEvery.
func newRedisState(t *testing.T, addr, prefix string, cfg RedisConfig) *Redis {
	t.Helper()
	client, err := NewRedisClient(Config{State: "redis://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Client = client
	return newRedisStateOn(t, prefix, cfg)
}

// newPausableRedisState is newRedisState on testClient.
func newPausableRedisState(t *testing.T, srv *redistest.Server, prefix string, cfg RedisConfig) *Redis {
	t.Helper()
	cfg.Client = testClient(t, srv)
	return newRedisStateOn(t, prefix, cfg)
}

// testClient is NewRedisClient's client whose steps to a paused srv fail
// after redistest.PausedWait, not after its one-second timeouts.
func testClient(t *testing.T, srv *redistest.Server) *redis.Client {
	t.Helper()
	client, err := NewRedisClient(Config{State: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	o := client.Options()
	client.Close()
	o.Dialer = srv.Dialer()
	// After PoolSize failed dials in a row go-redis dials only once a
	// second until one succeeds: a stopped Redis and kept writes tried
	// every testRetryEvery reach that in a fraction of a second, and the
	// test would wait out go-redis's second when Redis is back.
	o.PoolSize = 1000
	return redis.NewClient(o)
}

func newRedisStateOn(t *testing.T, prefix string, cfg RedisConfig) *Redis {
	t.Helper()
	cfg.StatePrefix = prefix
	if cfg.RetryEvery == 0 {
		cfg.RetryEvery = testRetryEvery
	}
	st := NewRedis(cfg)
	t.Cleanup(func() { st.Close() })
	return st
}

var backends = []backend{
	{"memory", func(t *testing.T, l Limits, usd USDLimit, c *clock) (State, func() State) {
		b := NewBudget(l).WithUSDPerDay(usd)
		b.now = c.Now
		js := NewJobStore(JobStoreConfig{})
		js.now = c.Now
		m := NewMemory(b, js)
		return m, func() State { return m }
	}},
	{"redis", func(t *testing.T, l Limits, usd USDLimit, c *clock) (State, func() State) {
		srv := sharedRedis(t)
		prefix := fmt.Sprintf("test%d:", prefixes.Add(1))
		cfg := RedisConfig{Limits: l, USD: usd, Now: c.Now}
		st := newRedisState(t, srv.Addr(), prefix, cfg)
		return st, func() State { return newRedisState(t, srv.Addr(), prefix, cfg) }
	}},
}

// TestStateContract holds every backend to the same behaviour: the
// reservation arithmetic, once-only settle and release, the UTC day, the
// unlimited ledger, job records and their expiry, atomic reservations
// from many callers (on Redis, from two instances), and what jobs cost.
func TestStateContract(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			t.Run("reservations", func(t *testing.T) { contractReservations(t, be) })
			t.Run("unlimited", func(t *testing.T) { contractUnlimited(t, be) })
			t.Run("jobs", func(t *testing.T) { contractJobs(t, be) })
			t.Run("parallel", func(t *testing.T) { contractParallel(t, be) })
			t.Run("costs", func(t *testing.T) { contractCosts(t, be) })
		})
	}
}

func contractReservations(t *testing.T, be backend) {
	c := &clock{now: redistest.Today(t, 23)}
	st, other := be.build(t, bytesLimits(300, 100), USDLimit{}, c)
	ctx := context.Background()
	if !st.Limited() {
		t.Fatal("Limited = false with limits")
	}
	r1, err := st.Reserve(ctx, "alice", 60)
	if err != nil || r1 == "" {
		t.Fatalf("Reserve = %q, %v", r1, err)
	}
	_, err = other().Reserve(ctx, "alice", 50)
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted || e.Retryable || !strings.Contains(e.Message, "held by queries still running") {
		t.Fatalf("Reserve past what is left = %v, want RESOURCE_EXHAUSTED naming the held bytes", err)
	}
	if err := st.Check(ctx, "alice", 50); err == nil {
		t.Error("Check ignores the held bytes")
	}
	if err := st.Check(ctx, "alice", 40); err != nil {
		t.Errorf("Check(40) with 40 left = %v", err)
	}
	if err := st.Check(ctx, "bob", 100); err != nil {
		t.Errorf("another principal's budget is charged: %v", err)
	}
	if r, err := other().Report(ctx, "alice"); err != nil || r.Reserved != 60 || r.Today.BytesBilled != 0 || *r.Left != 40 || r.DayLimit != 100 || r.SessionLimit != 300 {
		t.Errorf("report = %+v, %v; want 60 reserved, 40 left", r, err)
	}

	if ok, err := other().Settle(ctx, r1, Usage{Jobs: 1, BytesProcessed: 45, BytesBilled: 45}); !ok || err != nil {
		t.Fatalf("Settle = %v, %v for an open reservation", ok, err)
	}
	if ok, _ := st.Settle(ctx, r1, Usage{Jobs: 1, BytesBilled: 45}); ok {
		t.Error("a second Settle of the same reservation charged again")
	}
	if r, _ := st.Report(ctx, "alice"); r.Reserved != 0 || r.Today.BytesBilled != 45 || r.Today.BytesProcessed != 45 || r.Today.Jobs != 1 || *r.Left != 55 {
		t.Errorf("report after settle = %+v, want 45 billed, 55 left", r)
	}

	r2, err := st.Reserve(ctx, "alice", 55)
	if err != nil {
		t.Fatal(err)
	}
	if err := other().Release(ctx, r2); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.Settle(ctx, r2, Usage{BytesBilled: 1}); ok {
		t.Error("a released reservation was settled")
	}
	if r, _ := st.Report(ctx, "alice"); r.Reserved != 0 || r.Today.BytesBilled != 45 || r.Today.Jobs != 1 {
		t.Errorf("report after release = %+v", r)
	}

	// A hold made before midnight counts after it, against the new day
	// as well as the session; the day's spending starts again.
	r3, err := st.Reserve(ctx, "alice", 50)
	if err != nil {
		t.Fatal(err)
	}
	c.Add(2 * time.Hour)
	if r, _ := st.Report(ctx, "alice"); *r.Left != 50 || r.Today.BytesBilled != 0 {
		t.Errorf("report on the new day = %+v, want 50 left (100 less 50 held)", r)
	}
	st.Settle(ctx, r3, Usage{Jobs: 1, BytesBilled: 70})
	if r, _ := other().Report(ctx, "alice"); r.Today.BytesBilled != 70 || r.Session.BytesBilled != 115 || *r.Left != 30 {
		t.Errorf("report = %+v, want 70 today, 115 this session, 30 left", r)
	}
	if ok, err := st.Settle(ctx, "no-such-reservation", Usage{BytesBilled: 1}); ok || err != nil {
		t.Errorf("Settle of an unknown reservation = %v, %v", ok, err)
	}
}

func contractUnlimited(t *testing.T, be backend) {
	c := &clock{now: redistest.Today(t, 10)}
	st, other := be.build(t, Limits{}, USDLimit{}, c)
	ctx := context.Background()
	if st.Limited() {
		t.Fatal("Limited = true without limits")
	}
	id, err := st.Reserve(ctx, "", 1<<50)
	if err != nil || id == "" {
		t.Fatalf("Reserve = %q, %v", id, err)
	}
	for range 2 {
		_, _ = other().Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 10})
	}
	if r, _ := st.Report(ctx, ""); r.Session.Jobs != 1 || r.Session.BytesBilled != 10 || r.Reserved != 0 || r.Left != nil {
		t.Errorf("report = %+v", r)
	}
}

func contractJobs(t *testing.T, be backend) {
	c := &clock{now: redistest.Today(t, 10)}
	st, other := be.build(t, Limits{}, USDLimit{}, c)
	ctx := context.Background()
	rec := JobRecord{ID: "job_" + be.name, Principal: "token:1", Location: "EU", ThroughView: true, Reservation: "h.0123456789abcdef.x"}
	if err := st.RecordJob(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, err := other().LookupJob(ctx, rec.ID)
	if err != nil || got.Principal != "token:1" || got.Location != "EU" || !got.ThroughView || got.Reservation != rec.Reservation || !got.Started.Equal(c.Now()) {
		t.Fatalf("LookupJob = %+v, %v", got, err)
	}
	if _, err := other().LookupJob(ctx, "never"); !errors.Is(err, ErrJobNotRecorded) {
		t.Errorf("LookupJob(never) = %v, want ErrJobNotRecorded", err)
	}
	c.Add(JobRecordTTL)
	_, err = other().LookupJob(ctx, rec.ID)
	var f *ForgottenJobError
	if !errors.As(err, &f) || !f.Expired || f.Principal != "token:1" {
		t.Fatalf("LookupJob after its TTL = %v, want an expired ForgottenJobError of token:1", err)
	}
}

// contractParallel: many callers reserving at once, spread over two
// instances where the backend has them, get exactly as many holds as the
// budget has room for.
func contractParallel(t *testing.T, be backend) {
	const budget, each, callers = 1000, 70, 200
	c := &clock{now: redistest.Today(t, 10)}
	a, other := be.build(t, bytesLimits(0, budget), USDLimit{}, c)
	states := []State{a, other()}
	ctx := context.Background()
	var granted atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ids []string
	for i := range callers {
		st := states[i%2]
		wg.Go(func() {
			id, err := st.Reserve(ctx, "p", each)
			if err == nil {
				granted.Add(1)
				mu.Lock()
				ids = append(ids, id)
				mu.Unlock()
			} else if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted {
				t.Errorf("Reserve = %v", err)
			}
		})
	}
	wg.Wait()
	if got, want := granted.Load(), int64(budget/each); got != want {
		t.Errorf("%d reservations granted, want %d", got, want)
	}
	// Every job bills its estimate, settled on either instance.
	for i, id := range ids {
		states[(i+1)%2].Settle(ctx, id, Usage{Jobs: 1, BytesBilled: each})
	}
	r, _ := a.Report(ctx, "p")
	t.Logf("%s: %d parallel reservations of %d B over %d instance(s) under %d B: %d granted, %d B billed (%.2f of the budget)",
		be.name, callers, each, len(states), budget, granted.Load(), r.Today.BytesBilled, float64(r.Today.BytesBilled)/budget)
	if r.Today.BytesBilled > budget || r.Reserved != 0 || r.Today.BytesBilled != granted.Load()*each {
		t.Errorf("report = %+v, want %d billed within %d", r, granted.Load()*each, budget)
	}
}

// TestRedisRetriedReserveHoldsOnce: an attempt whose answer was lost is
// made again with the same reservation ID, and holds once.
func TestRedisRetriedReserveHoldsOnce(t *testing.T) {
	srv := sharedRedis(t)
	twice := func(ctx context.Context, fn func(context.Context) error) error {
		if err := fn(ctx); err != nil {
			return err
		}
		return fn(ctx) // the first answer "lost"
	}
	st := newRedisState(t, srv.Addr(), fmt.Sprintf("retry%d:", prefixes.Add(1)), RedisConfig{Limits: Limits{MaxBytesPerDay: 100}, Do: twice})
	ctx := context.Background()
	id, err := st.Reserve(ctx, "p", 60)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := st.Report(ctx, "p"); r.Reserved != 60 {
		t.Errorf("reserved = %d after a retried reserve, want 60", r.Reserved)
	}
	st.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 50})
	if r, _ := st.Report(ctx, "p"); r.Reserved != 0 || r.Today.BytesBilled != 50 || r.Today.Jobs != 1 {
		t.Errorf("report after a retried settle = %+v, want one job of 50 B", r)
	}
}

// TestRedisLapsedHoldChargedItsEstimate: a hold nobody settled (its
// instance stopped while its job ran) lapses after 25 hours and is
// charged its estimate, as the follower would; settling it later charges
// nothing more.
func TestRedisLapsedHoldChargedItsEstimate(t *testing.T) {
	srv := sharedRedis(t)
	c := &clock{now: redistest.Today(t, 10)}
	st := newRedisState(t, srv.Addr(), fmt.Sprintf("lapse%d:", prefixes.Add(1)), RedisConfig{Limits: Limits{MaxBytesPerSession: 1000}, Now: c.Now})
	ctx := context.Background()
	id, err := st.Reserve(ctx, "p", 400)
	if err != nil {
		t.Fatal(err)
	}
	c.Add(holdTTL + time.Minute)
	r, err := st.Report(ctx, "p")
	if err != nil || r.Reserved != 0 || r.Session.BytesBilled != 400 || r.Session.Jobs != 1 || *r.Left != 600 {
		t.Fatalf("report after the hold lapsed = %+v, %v; want its 400 B charged", r, err)
	}
	if ok, _ := st.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 10}); ok {
		t.Error("a lapsed hold was settled again")
	}
}

// TestRedisKeysHaveTTLsAndNoPrincipals: every key the state writes
// expires, lives under the prefix, and names no principal.
func TestRedisKeysHaveTTLsAndNoPrincipals(t *testing.T) {
	srv := sharedRedis(t)
	prefix := fmt.Sprintf("ttl%d:", prefixes.Add(1))
	st := newRedisState(t, srv.Addr(), prefix, RedisConfig{Limits: Limits{MaxBytesPerDay: 1 << 30}})
	ctx := context.Background()
	const who = "alice@example.com"
	id, _ := st.Reserve(ctx, who, 10)
	id2, _ := st.Reserve(ctx, who, 10)
	st.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 5})
	st.Settle(ctx, "u."+principalTag(who)+".unheld", Usage{Jobs: 1, BytesBilled: 5})
	st.RecordJob(ctx, JobRecord{ID: "job1", Principal: who, Reservation: id2})
	keys, err := st.client.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	var mine int
	var jobBytes, principalBytes int64
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		mine++
		n, _ := st.client.MemoryUsage(ctx, k).Result()
		if strings.HasPrefix(k, prefix+"job:") {
			jobBytes += n
		} else {
			principalBytes += n
		}
		if strings.Contains(k, "alice") || strings.Contains(k, "example") {
			t.Errorf("key %q names the principal", k)
		}
		ttl, err := st.client.PTTL(ctx, k).Result()
		if err != nil || ttl <= 0 {
			t.Errorf("key %q has TTL %v, %v; want one", k, ttl, err)
		}
	}
	t.Logf("Redis memory: %d B for one job record, %d B for one principal's budget keys with one hold", jobBytes, principalBytes)
	if mine < 6 { // acct, holds, holdexp, day, done marker, job
		t.Errorf("%d keys under the prefix, want at least 6: %v", mine, keys)
	}
}

// TestRedisDownFailsClosed: with Redis stopped mid-test, budget steps
// answer a retryable UNAVAILABLE that names the store and hold nothing,
// and no lookup guesses whose a job is; a settlement and a job record made
// meanwhile are kept and reach the store when it answers again, so the
// budget counts the job once and its owner can read it from another
// instance.
func TestRedisDownFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	cfg := RedisConfig{Limits: Limits{MaxBytesPerDay: 1000}}
	st := newPausableRedisState(t, srv, "down:", cfg)
	id, err := st.Reserve(ctx, "p", 300)
	if err != nil {
		t.Fatal(err)
	}
	srv.Pause()
	resumed := false
	defer func() {
		if !resumed {
			srv.Resume()
		}
	}()

	_, err = st.Reserve(ctx, "p", 10)
	e, ok := bqerr.As(err)
	if !ok || e.Code != bqerr.Unavailable || !e.Retryable || !strings.Contains(e.Message, "Redis") {
		t.Fatalf("Reserve with Redis down = %v, want a retryable UNAVAILABLE naming Redis", err)
	}
	if err := st.Check(ctx, "p", 10); err == nil {
		t.Error("Check passed with Redis down")
	}
	if _, err := st.Report(ctx, "p"); err == nil {
		t.Error("Report answered with Redis down")
	}
	if _, err := st.LookupJob(ctx, "someone-elses"); err == nil || errors.Is(err, ErrJobNotRecorded) {
		t.Errorf("LookupJob with Redis down = %v, want an error, never a guess", err)
	}
	// The job that held before the outage finishes during it.
	if ok, err := st.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 250}); ok || err != nil {
		t.Errorf("Settle with Redis down = %v, %v; want it kept for later", ok, err)
	}
	st.RecordJob(ctx, JobRecord{ID: "during", Principal: "p"})
	if rec, err := st.LookupJob(ctx, "during"); err != nil || rec.Principal != "p" {
		t.Errorf("the job recorded during the outage, on this instance = %+v, %v", rec, err)
	}
	// Kept: the release of the reserve whose answer was lost, the
	// settlement and the record.
	if n := st.Pending(); n != 3 {
		t.Errorf("%d writes kept, want 3", n)
	}

	srv.Resume()
	resumed = true
	waitFor(t, func() bool { return st.Pending() == 0 })
	other := newRedisState(t, srv.Addr(), "down:", cfg)
	r, err := other.Report(ctx, "p")
	if err != nil || r.Today.BytesBilled != 250 || r.Today.Jobs != 1 || r.Reserved != 0 {
		t.Errorf("report after Redis came back = %+v, %v; want the job's 250 B charged once", r, err)
	}
	if rec, err := other.LookupJob(ctx, "during"); err != nil || rec.Principal != "p" {
		t.Errorf("the record written after the outage, on another instance = %+v, %v", rec, err)
	}
	if _, err := st.Reserve(ctx, "p", 10); err != nil {
		t.Errorf("Reserve after Redis came back = %v", err)
	}
}

// TestRedisDownFailsOpen: with --state-fail-open, queries run while Redis
// is down (their reservations hold nothing), and the jobs are charged
// once when it answers again.
func TestRedisDownFailsOpen(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	var failedOpen atomic.Int64
	cfg := RedisConfig{Limits: Limits{MaxBytesPerDay: 1000}, StateFailOpen: true, Hooks: RedisHooks{FailedOpen: func(context.Context, string) { failedOpen.Add(1) }}}
	st := newRedisState(t, srv.Addr(), "open:", cfg)
	srv.Stop()
	id, err := st.Reserve(ctx, "p", 300)
	if err != nil || !strings.HasPrefix(id, "u.") {
		t.Fatalf("Reserve with Redis down and fail-open = %q, %v; want an unheld reservation", id, err)
	}
	if err := st.Check(ctx, "p", 5000); err != nil {
		t.Errorf("Check with Redis down and fail-open = %v", err)
	}
	if failedOpen.Load() != 2 {
		t.Errorf("fail-open hook called %d times, want 2", failedOpen.Load())
	}
	st.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 280})
	srv.Restart()
	waitFor(t, func() bool { return st.Pending() == 0 })
	other := newRedisState(t, srv.Addr(), "open:", cfg)
	other.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 280}) // seen finishing twice
	if r, err := other.Report(ctx, "p"); err != nil || r.Today.BytesBilled != 280 || r.Today.Jobs != 1 {
		t.Errorf("report after Redis came back = %+v, %v; want the job charged once", r, err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 15s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNewRedisClient: the password comes from a file when one is named;
// TLS from rediss://; a bad URL's error never quotes its password.
func TestNewRedisClient(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("s3cret-from-file\n"), 0o600)
	c, err := NewRedisClient(Config{State: "rediss://:in-url@10.0.0.3:6378/2", StatePasswordFile: pw})
	if err != nil {
		t.Fatal(err)
	}
	o := c.Options()
	if o.Password != "s3cret-from-file" || o.TLSConfig == nil || o.DB != 2 || o.Addr != "10.0.0.3:6378" || o.MaxRetries > 0 {
		t.Errorf("options = addr %s db %d tls %v password-from-file %v retries %d", o.Addr, o.DB, o.TLSConfig != nil, o.Password == "s3cret-from-file", o.MaxRetries)
	}
	c.Close()
	_, err = NewRedisClient(Config{State: "redis://:hunter2@host:notaport:x"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad URL error = %v; want one without the password", err)
	}
	if _, err := NewRedisClient(Config{State: "redis://h:6379", StateCAFile: pw}); err == nil {
		t.Error("a CA file without TLS was accepted")
	}
	if got := RedactURL("redis://user:hunter2@h:6379/0"); strings.Contains(got, "hunter2") {
		t.Errorf("RedactURL = %s", got)
	}
}

// BenchmarkRedisQuerySteps is what one execute_sql adds against Redis on
// loopback: reserve the estimate, record the job, settle it, and (a later
// page) look the record up.
func BenchmarkRedisQuerySteps(b *testing.B) {
	srv := redistest.Start(b)
	client, err := NewRedisClient(Config{State: srv.URL()})
	if err != nil {
		b.Fatal(err)
	}
	st := NewRedis(RedisConfig{Client: client, Limits: Limits{MaxBytesPerDay: 1 << 60}})
	defer st.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id, err := st.Reserve(ctx, "token:bench", 100)
		if err != nil {
			b.Fatal(err)
		}
		job := fmt.Sprintf("job_%d", i)
		st.RecordJob(ctx, JobRecord{ID: job, Principal: "token:bench", Reservation: id})
		st.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 100})
		if _, err := st.LookupJob(ctx, job); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRedisOutagesInARow: writes kept in one outage are made when Redis
// answers, and so are those of the next outage (a new retry loop), each
// once; Close then has nothing left to lose.
func TestRedisOutagesInARow(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	st := newPausableRedisState(t, srv, "twice:", RedisConfig{Limits: Limits{MaxBytesPerDay: 1000}})
	for i := range 2 {
		id, err := st.Reserve(ctx, "p", 100)
		if err != nil {
			t.Fatal(err)
		}
		srv.Pause()
		st.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 100})
		srv.Resume()
		waitFor(t, func() bool { return st.Pending() == 0 })
		if r, err := st.Report(ctx, "p"); err != nil || r.Today.Jobs != int64(i+1) || r.Reserved != 0 {
			t.Fatalf("after outage %d: %+v, %v", i+1, r, err)
		}
	}
	if err := st.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}
