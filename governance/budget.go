package governance

import (
	"fmt"
	"sync"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Budget keeps what each principal spent in this process and refuses a
// query whose estimate passes what is left (--max-bytes-per-session,
// --max-bytes-per-day). A principal is the authenticated caller on HTTP and
// the one local user ("") on stdio. The accounts live in this instance only:
// fleet-wide limits are BigQuery's custom quotas (docs/governance.md).
//
// A nil *Budget keeps no limits but still counts nothing; use NewBudget
// for a ledger that counts without limits (the usage tool).
type Budget struct {
	perSession int64
	perDay     int64
	now        func() time.Time

	mu       sync.Mutex
	accounts map[string]*account
}

// account is one principal's spending since the process started (session)
// and since the start of the current UTC day (day).
type account struct {
	session Usage
	day     Usage
	dayOf   string
	seen    time.Time
}

// Usage is what a principal's jobs cost.
type Usage struct {
	Jobs           int64 `json:"jobs"`
	BytesProcessed int64 `json:"bytesProcessed"`
	BytesBilled    int64 `json:"bytesBilled"`
}

// NewBudget returns a ledger with the given limits in bytes billed; zero
// means no limit.
func NewBudget(perSession, perDay int64) *Budget {
	return &Budget{perSession: perSession, perDay: perDay, now: time.Now, accounts: map[string]*account{}}
}

// Limited reports whether any limit is set: only then must a query's cost be
// estimated before it runs.
func (b *Budget) Limited() bool { return b != nil && (b.perSession > 0 || b.perDay > 0) }

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
				if now.Sub(old.seen) > idleAccount {
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
// of either limit. limited is false when no limit is set.
func (b *Budget) Left(principal string) (left int64, limited bool) {
	if !b.Limited() {
		return 0, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left(b.account(principal)), true
}

func (b *Budget) left(a *account) int64 {
	left := int64(-1)
	if b.perSession > 0 {
		left = max(0, b.perSession-a.session.BytesBilled)
	}
	if b.perDay > 0 {
		d := max(0, b.perDay-a.day.BytesBilled)
		if left < 0 || d < left {
			left = d
		}
	}
	return left
}

// Check refuses, with RESOURCE_EXHAUSTED, a query whose estimate is more
// than principal has left. estimate is the dry run's bytes processed, which
// on-demand billing charges (rounded up to 10 MB per table, which the
// estimate may not show: a small overshoot is possible and accepted).
func (b *Budget) Check(principal string, estimate int64) error {
	left, limited := b.Left(principal)
	if !limited || estimate <= left {
		return nil
	}
	return bqerr.Newf(bqerr.ResourceExhausted, "the query would process about %s but %s is left of this server's bytes budget", FormatBytes(estimate), FormatBytes(left)).
		WithRetryable(false).
		WithHint(b.hint())
}

func (b *Budget) hint() string {
	var limits string
	switch {
	case b.perSession > 0 && b.perDay > 0:
		limits = fmt.Sprintf("%s per session and %s per day", FormatBytes(b.perSession), FormatBytes(b.perDay))
	case b.perSession > 0:
		limits = FormatBytes(b.perSession) + " per session"
	default:
		limits = FormatBytes(b.perDay) + " per UTC day"
	}
	return "The budget is " + limits + " (see the usage tool). Read less: select only the columns needed, filter on the partition column, or query a smaller table; dry_run_sql shows the estimate for free."
}

// Add records a finished job's cost against principal.
func (b *Budget) Add(principal string, u Usage) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.account(principal)
	for _, x := range []*Usage{&a.session, &a.day} {
		x.Jobs += u.Jobs
		x.BytesProcessed += u.BytesProcessed
		x.BytesBilled += u.BytesBilled
	}
}

// Report is a principal's spending and what is left.
type Report struct {
	Session Usage `json:"session"`
	Today   Usage `json:"today"`
	// SessionLimit and DayLimit are the budgets in bytes billed (absent: no limit).
	SessionLimit int64 `json:"sessionLimitBytes,omitempty"`
	DayLimit     int64 `json:"dayLimitBytes,omitempty"`
	// Left is the most the next queries may be billed (absent: no limit).
	Left *int64 `json:"leftBytes,omitempty"`
}

// Report returns principal's spending.
func (b *Budget) Report(principal string) Report {
	if b == nil {
		return Report{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.account(principal)
	r := Report{Session: a.session, Today: a.day, SessionLimit: b.perSession, DayLimit: b.perDay}
	if b.Limited() {
		left := b.left(a)
		r.Left = &left
	}
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
