package governance

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Budget keeps what each principal spent in this process and refuses a
// query whose estimate passes what is left (--max-bytes-per-session,
// --max-bytes-per-day). A principal is the authenticated caller on HTTP and
// the one local user ("") on stdio. The accounts live in this instance only:
// fleet-wide limits are BigQuery's custom quotas (docs/governance.md).
//
// A query holds its estimate as a reservation from before its job starts
// until the job is seen to finish (Reserve, Settle, Release): a check
// followed by a charge after the job would let every call running at once
// pass the same check.
//
// A nil *Budget keeps no limits but still counts nothing; use NewBudget
// for a ledger that counts without limits (the usage tool).
type Budget struct {
	limits Limits
	// usd is the dollar budget per day (WithUSDPerDay).
	usd USDLimit
	now func() time.Time

	mu       sync.Mutex
	accounts map[string]*account
	// reservations are the bytes held for jobs not yet settled, by
	// reservation ID. A plain map, not a cache: dropping one would free
	// bytes a running job may still bill. Each is settled or released by
	// the call that made it or by the query service's follower of
	// unfinished jobs, so there are at most as many as jobs running.
	reservations map[string]reservation
}

// account is one principal's spending since the process started (session)
// and since the start of the current UTC day (day), and what its running
// jobs hold (reserved), which counts against both limits.
type account struct {
	session  Usage
	day      Usage
	dayOf    string
	seen     time.Time
	reserved int64
	// reservedMicroUSD is what running jobs hold of the dollar budget.
	reservedMicroUSD int64
	// recent is the last settled jobs (Recent).
	recent recentJobs
}

// reservation is bytes held for one job of principal.
type reservation struct {
	principal string
	bytes     int64
	microUSD  int64
}

// Usage is what a principal's jobs cost.
type Usage struct {
	Jobs           int64 `json:"jobs"`
	BytesProcessed int64 `json:"bytesProcessed"`
	BytesBilled    int64 `json:"bytesBilled"`
	// MicroUSD is what the jobs cost in millionths of a dollar, each at
	// its own price: what the dollar budget counts and what usage reports
	// as the session's and the day's cost, kept whether or not a dollar
	// limit is set. A settlement that leaves it 0 is priced by the
	// ledger's USDLimit: its Job by USDLimit.Job, else its bytes billed
	// at USDLimit.Price.
	MicroUSD int64 `json:"-"`
	// Unpriced counts the jobs whose cost is unknown (editions billing
	// without their slot time): they add nothing to MicroUSD, and usage
	// says how many were left out.
	Unpriced int64 `json:"-"`
	// Job, set only on a Settle, is the settled job for the principal's
	// list of last jobs (RecentJobs); nil adds nothing to it.
	Job *FinishedJob `json:"-"`
}

// USDLimit is the ledger's dollars: how it prices every job it counts
// (the session's and the day's cost usage reports, whether or not a limit
// is set) and the dollar budget per principal per UTC day
// (--max-usd-per-day), kept next to the bytes budgets and enforced the
// same way: a query holds its estimate, priced, until its job's cost
// replaces the hold.
type USDLimit struct {
	// PerDay is the limit in dollars (Limits.MaxUSDPerDay); zero: none.
	PerDay float64
	// Price is what bytes cost in millionths of a dollar: an estimate's
	// hold, and a settlement's cost when it gives none (the server's
	// on-demand price at --location); ok false when bytes set no price
	// (editions). Nil prices nothing. Without a price a hold counts no
	// dollars (the cost is known only after the run), and the limit
	// refuses once the day's spend has reached it.
	Price func(bytes int64) (microUSD int64, ok bool)
	// Job prices a settled job at its own location's price, or its slot
	// time under editions (ok false: unknown, priced at Price).
	Job func(j FinishedJob) (microUSD int64, ok bool)
}

// cost is what a settlement charges (Usage.MicroUSD): the cost it gives,
// else its job's own price, else its bytes billed at Price; ok is false
// when none of them knows it.
func (l USDLimit) cost(u Usage) (microUSD int64, ok bool) {
	if u.MicroUSD != 0 {
		return u.MicroUSD, true
	}
	if u.Job != nil && l.Job != nil {
		if m, ok := l.Job(*u.Job); ok {
			return m, true
		}
	}
	if l.Price == nil {
		return 0, false
	}
	return l.Price(max(u.BytesBilled, 0))
}

// priced is a settlement's u with its cost: MicroUSD, or its jobs counted
// as Unpriced when the cost is unknown.
func (l USDLimit) priced(u Usage) Usage {
	m, ok := l.cost(u)
	u.MicroUSD, u.Unpriced = m, 0
	if !ok {
		u.Unpriced = u.Jobs
	}
	return u
}

// perDayMicro is the limit in millionths of a dollar.
func (l USDLimit) perDayMicro() int64 { return int64(math.Round(l.PerDay * 1e6)) }

// hold prices bytes for a hold or a settlement without a cost.
func (l USDLimit) hold(bytes int64) int64 {
	if l.Price == nil || bytes <= 0 {
		return 0
	}
	m, _ := l.Price(bytes)
	return m
}

// usdLeft is what may still be spent today under a dollar limit of
// perDay (micro-USD), after spent and held; -1 without a limit.
func usdLeft(perDay, spent, held int64) int64 {
	if perDay <= 0 {
		return -1
	}
	return max(0, perDay-spent-held)
}

// usdExhausted refuses a query whose priced estimate does not fit what is
// left of the dollar budget.
func usdExhausted(need, left, held int64, perDay float64) error {
	msg := fmt.Sprintf("the query would cost about %s but %s is left of this server's dollar budget", FormatUSD(need), FormatUSD(left))
	if held > 0 {
		msg += fmt.Sprintf(" (%s is held by queries still running)", FormatUSD(held))
	}
	return bqerr.New(bqerr.ResourceExhausted, msg).WithRetryable(false).WithHint(
		fmt.Sprintf("The budget is %s per UTC day (see the usage tool). Read less: select only the columns needed, filter on the partition column; dry_run_sql shows the estimate and its advice for free.", FormatUSD(int64(math.Round(perDay*1e6)))))
}

// FormatUSD prints millionths of a dollar as dollars, to the cent's
// hundredth.
func FormatUSD(micro int64) string {
	return "$" + strconv.FormatFloat(math.Round(float64(micro)/100)/1e4, 'f', -1, 64)
}

// WithUSDPerDay prices every job b counts by l (usage's costs, with or
// without a limit) and its dollar budget per principal per UTC day
// (Limits.MaxUSDPerDay, which sets l.PerDay), and returns b. Without it
// no job has a known cost.
func (b *Budget) WithUSDPerDay(l USDLimit) *Budget {
	l.PerDay = b.limits.MaxUSDPerDay
	b.usd = l
	return b
}

// NewBudget returns a ledger with the given limits in bytes billed; zero
// means no limit.
func NewBudget(limits Limits) *Budget {
	return &Budget{limits: limits, now: time.Now, accounts: map[string]*account{}, reservations: map[string]reservation{}}
}

// Limited reports whether any limit is set: only then must a query's cost be
// estimated before it runs.
func (b *Budget) Limited() bool {
	return b != nil && (b.limits.MaxBytesPerSession > 0 || b.limits.MaxBytesPerDay > 0 || b.usd.perDayMicro() > 0)
}

// idleAccount is how long an account nobody used is kept: past a day it
// holds nothing the limits still count.
const idleAccount = 48 * time.Hour

func (b *Budget) account(principal string) *account {
	now := b.now()
	day := now.UTC().Format(time.DateOnly)
	a := b.accounts[principal]
	if a == nil {
		if len(b.accounts) > 1024 {
			for p, old := range b.accounts {
				if now.Sub(old.seen) > idleAccount && old.reserved == 0 {
					delete(b.accounts, p)
				}
			}
		}
		a = &account{dayOf: day}
		b.accounts[principal] = a
	}
	if a.dayOf != day {
		a.day, a.dayOf = Usage{}, day
	}
	a.seen = now
	return a
}

// Left is what principal may still be billed: the smaller of what is left
// of either limit, less what running jobs hold. limited is false when no
// limit is set.
func (b *Budget) Left(principal string) (left int64, limited bool) {
	if !b.Limited() {
		return 0, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left(b.account(principal)), true
}

func (b *Budget) left(a *account) int64 {
	return limitsLeft(b.limits.MaxBytesPerSession, b.limits.MaxBytesPerDay, a.session.BytesBilled, a.day.BytesBilled, a.reserved)
}

// limitsLeft is what may still be billed under both limits (zero: none)
// after what was billed this session and today and what is held; -1 when
// neither limit is set. Memory and Redis state answer by the same rule.
func limitsLeft(perSession, perDay, sessionBilled, dayBilled, held int64) int64 {
	left := int64(-1)
	if perSession > 0 {
		left = max(0, perSession-sessionBilled-held)
	}
	if perDay > 0 {
		d := max(0, perDay-dayBilled-held)
		if left < 0 || d < left {
			left = d
		}
	}
	return left
}

// Check refuses, with RESOURCE_EXHAUSTED, a query whose estimate is more
// than principal has left, and holds nothing: dry_run_sql's answer, and
// search_columns' fixed charge. A query that runs must Reserve instead.
// estimate is the dry run's bytes processed, which on-demand billing
// charges (rounded up to 10 MB per table, which the estimate may not show:
// a small overshoot is possible and accepted).
func (b *Budget) Check(principal string, estimate int64) error {
	if !b.Limited() {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fits(b.account(principal), estimate)
}

// fits is Check with b.mu held: the bytes limits, then the dollar limit.
func (b *Budget) fits(a *account, estimate int64) error {
	if b.limits.MaxBytesPerSession > 0 || b.limits.MaxBytesPerDay > 0 {
		if left := b.left(a); estimate > left {
			return exhausted(estimate, left, a.reserved, b.limits.MaxBytesPerSession, b.limits.MaxBytesPerDay)
		}
	}
	return fitsUSD(b.usd, b.usd.hold(estimate), a.day.MicroUSD, a.reservedMicroUSD)
}

// fitsUSD refuses a hold of need (micro-USD) that passes what is left of
// the dollar limit after spent and held, or any query once nothing is
// left. Memory and Redis state answer by this rule.
func fitsUSD(l USDLimit, need, spent, held int64) error {
	left := usdLeft(l.perDayMicro(), spent, held)
	if left < 0 || (need <= left && left > 0) {
		return nil
	}
	return usdExhausted(need, left, held, l.PerDay)
}

// exhausted is the refusal of an estimate that does not fit: what is
// left, what running queries hold, and the limits in the hint.
func exhausted(estimate, left, reserved, perSession, perDay int64) error {
	msg := fmt.Sprintf("the query would process about %s but %s is left of this server's bytes budget", FormatBytes(estimate), FormatBytes(left))
	if reserved > 0 {
		msg += fmt.Sprintf(" (%s is held by queries still running)", FormatBytes(reserved))
	}
	return bqerr.New(bqerr.ResourceExhausted, msg).WithRetryable(false).WithHint(budgetHint(perSession, perDay))
}

// Reserve holds bytes of principal's budget for a job about to start, or
// refuses, with RESOURCE_EXHAUSTED, when they are more than is left; the
// check and the hold are one step, so calls running at once cannot all
// pass. It returns the reservation's ID, which Settle or Release ends.
// Without limits it still holds (nothing is refused), so that the job's
// cost is counted once whoever sees it finish.
func (b *Budget) Reserve(principal string, bytes int64) (string, error) {
	if b == nil {
		return "", nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.account(principal)
	if b.Limited() {
		if err := b.fits(a, bytes); err != nil {
			return "", err
		}
	}
	bytes = max(bytes, 0)
	id := uuid.NewString()
	micro := b.usd.hold(bytes)
	a.reserved += bytes
	a.reservedMicroUSD += micro
	b.reservations[id] = reservation{principal: principal, bytes: bytes, microUSD: micro}
	return id, nil
}

// Settle ends a reservation with its job's cost: the held bytes are freed
// and u is charged to the principal who reserved them. It reports whether
// this call settled it; a reservation already settled or released is left
// alone, so two tools that see the same job finish charge it once.
func (b *Budget) Settle(id string, u Usage) bool {
	if b == nil || id == "" {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.unhold(id)
	if a == nil {
		return false
	}
	u = b.usd.priced(u)
	a.charge(u)
	if u.Job != nil {
		j := *u.Job
		j.Settled = b.now()
		a.recent.add(j)
	}
	return true
}

// Release ends a reservation whose job never started: nothing is charged.
// It reports whether this call released it.
func (b *Budget) Release(id string) bool {
	if b == nil || id == "" {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.unhold(id) != nil
}

// unhold ends reservation id and frees what it holds, the step Settle and
// Release share, and returns the account it was held on: nil when it was
// already settled or released, so each reservation ends once. b.mu must
// be held.
func (b *Budget) unhold(id string) *account {
	r, ok := b.reservations[id]
	if !ok {
		return nil
	}
	delete(b.reservations, id)
	a := b.account(r.principal)
	a.reserved -= r.bytes
	a.reservedMicroUSD -= r.microUSD
	return a
}

func budgetHint(perSession, perDay int64) string {
	var limits string
	switch {
	case perSession > 0 && perDay > 0:
		limits = fmt.Sprintf("%s per session and %s per day", FormatBytes(perSession), FormatBytes(perDay))
	case perSession > 0:
		limits = FormatBytes(perSession) + " per session"
	default:
		limits = FormatBytes(perDay) + " per UTC day"
	}
	return "The budget is " + limits + " (see the usage tool). Read less: select only the columns needed, filter on the partition column, or query a smaller table; dry_run_sql shows the estimate for free."
}

func (a *account) charge(u Usage) {
	for _, x := range []*Usage{&a.session, &a.day} {
		x.Jobs += u.Jobs
		x.BytesProcessed += u.BytesProcessed
		x.BytesBilled += u.BytesBilled
		x.MicroUSD += u.MicroUSD
		x.Unpriced += u.Unpriced
	}
}

// Report is a principal's spending and what is left.
type Report struct {
	Session Usage `json:"session"`
	Today   Usage `json:"today"`
	// SessionLimit and DayLimit are the budgets in bytes billed (absent: no limit).
	SessionLimit int64 `json:"sessionLimitBytes,omitempty"`
	DayLimit     int64 `json:"dayLimitBytes,omitempty"`
	// Reserved is what queries still running hold: their estimates, until
	// each job's bytes billed replace them.
	Reserved int64 `json:"reservedBytes"`
	// Left is the most the next queries may be billed (absent: no limit).
	Left *int64 `json:"leftBytes,omitempty"`
	// DayLimitUSD is the dollar budget per UTC day (absent: none);
	// ReservedUSD what running queries hold of it (their estimates,
	// priced); LeftUSD what is left of it after today's jobs, each at its
	// own price, and the holds. Today's cost + ReservedUSD + LeftUSD is
	// the limit, unless the spend passed it (LeftUSD is never negative).
	DayLimitUSD float64  `json:"dayLimitUSD,omitempty"`
	ReservedUSD *float64 `json:"reservedUSD,omitempty" jsonschema:"What running queries hold of the dollar budget: their estimates, priced (absent without one)."`
	LeftUSD     *float64 `json:"leftUSD,omitempty"`
	// reservedMicroUSD is what running queries hold of the dollar budget.
	reservedMicroUSD int64
}

// withUSD fills r's dollar budget from l, spent today and held (micro-USD).
func (r *Report) withUSD(l USDLimit, spent, held int64) {
	left := usdLeft(l.perDayMicro(), spent, held)
	if left < 0 {
		return
	}
	usd, heldUSD := float64(left)/1e6, float64(max(held, 0))/1e6
	r.DayLimitUSD, r.ReservedUSD, r.LeftUSD = l.PerDay, &heldUSD, &usd
}

// Report returns principal's spending.
func (b *Budget) Report(principal string) Report {
	if b == nil {
		return Report{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.account(principal)
	r := Report{Session: a.session, Today: a.day, SessionLimit: b.limits.MaxBytesPerSession, DayLimit: b.limits.MaxBytesPerDay, Reserved: a.reserved}
	if b.limits.MaxBytesPerSession > 0 || b.limits.MaxBytesPerDay > 0 {
		left := b.left(a)
		r.Left = &left
	}
	r.withUSD(b.usd, a.day.MicroUSD, a.reservedMicroUSD)
	return r
}

// FormatBytes prints n in binary units, the way BigQuery's console does.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
