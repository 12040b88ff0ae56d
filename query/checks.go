package query

// The checks before a job, in one list. execute_sql and export_results go
// through it to admit a job (preflight, guard.go); dry_run_sql goes
// through the same list to say whether execute_sql would run the query
// (wouldExecute, and in its note why not). A rule added here holds for
// both, so the two cannot answer differently.
//
// A new rule goes into checks, in the order it must run, with what it
// decides from the statement's text alone (before any dry run: free) and
// from the dry run's answer, and what it does in each pass: admitting
// refuses (a bqerr, no job at the wire), holds the budget or asks the
// user; predicting only says, as a note, what execute_sql would refuse,
// holding and asking nothing. A rule about what the caller may see at all
// (the dataset allowlist) refuses dry_run_sql itself too.

import (
	"context"
	"errors"
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// pass says what a pass over the checks is for.
type pass int

const (
	// admitting: execute_sql or export_results is about to start the job.
	admitting pass = iota
	// predicting: dry_run_sql tells what execute_sql would do.
	predicting
)

// check is one rule before a job; either half may be nil.
type check struct {
	// text decides from the statement's text alone, before any dry run.
	text func(ctx context.Context, r *request, p pass) error
	// plan decides from the dry run's answer.
	plan func(ctx context.Context, r *request, plan *dryRunResult, p pass) error
	// refusesDryRun: the rule is about what the caller may see at all, so
	// it refuses dry_run_sql too (before its dry run, by the text, and
	// after it, by its answer), instead of noting what execute_sql would
	// do.
	refusesDryRun bool
}

// checks is every rule before a job, in the order they run; NewService
// builds it once.
func (s *Service) checks() []check {
	return []check{
		// Read-only: first by reading the SQL, then by asking BigQuery what
		// the statement is. The lexical guard cannot be fooled by BigQuery
		// and BigQuery's statementType cannot be fooled by clever text;
		// each covers the other.
		{text: s.readOnlyText, plan: s.readOnlyPlan},
		// The dataset allowlist (allow.go): the objects the text names,
		// then every table and object the dry run reports.
		{text: s.allowlistText, plan: s.allowlistPlan, refusesDryRun: true},
		// What the two above settled is remembered for the text
		// (verdicts): the same query asked again skips its dry run unless
		// a rule below needs a fresh estimate.
		{plan: s.remember},
		// After the allowlist: a refused query's size is not the caller's
		// to learn. The caller's own check of the estimate (RunToTable's
		// export cap) comes before any budget is held.
		{plan: s.callersEstimate},
		{plan: s.bytesCap},
		// The estimate is held, not only checked, so that calls running at
		// once cannot all spend what is left (settle.go).
		{plan: s.budget},
		{plan: s.confirmation},
	}
}

// wouldAsk is a predicting rule's word that execute_sql would run the
// query after the user confirms it: a note, not a refusal.
type wouldAsk struct{ note string }

func (w wouldAsk) Error() string { return w.note }

// predict goes through the checks for dry_run_sql after its dry run, plan:
// would is false when a rule would refuse the query in execute_sql, and
// notes say why (and what execute_sql would ask). A rule that refuses a
// dry run returns its refusal as err.
func (s *Service) predict(ctx context.Context, r *request, plan *dryRunResult) (would bool, notes []string, err error) {
	would = true
	for _, c := range s.rules {
		var err error
		if c.text != nil && !c.refusesDryRun {
			err = c.text(ctx, r, predicting)
		}
		if err == nil && c.plan != nil {
			err = c.plan(ctx, r, plan, predicting)
		}
		var ask wouldAsk
		switch {
		case err == nil:
		case c.refusesDryRun:
			return false, nil, err
		case errors.As(err, &ask):
			notes = append(notes, ask.note)
		default:
			would, notes = false, append(notes, err.Error())
		}
	}
	return would, notes, nil
}

// readOnlyText is the lexical half of the read-only rule: anything but a
// single SELECT is refused without a round trip (guard.go).
func (s *Service) readOnlyText(ctx context.Context, r *request, p pass) error {
	if s.cfg.AllowWrites {
		return nil
	}
	if p == predicting {
		if err := r.text.ReadOnly(); err != nil {
			return fmt.Errorf("execute_sql would refuse this on a read-only server: %w", err)
		}
		return nil
	}
	return s.checkReadOnlyText(ctx, r)
}

// readOnlyPlan is BigQuery's half of the read-only rule: the statement
// type the dry run reports.
func (s *Service) readOnlyPlan(_ context.Context, r *request, plan *dryRunResult, p pass) error {
	st := plan.StatementType
	if s.cfg.AllowWrites || st == "" || st == "SELECT" {
		return nil
	}
	if p == predicting {
		return errors.New("execute_sql would refuse this on a read-only server: it is a " + st + " statement")
	}
	return s.checkStatementType(r, st)
}

// allowlistText checks the objects the text names against --datasets,
// then the tables the property graphs it reads are built on (one lookup
// per graph not remembered; none without an allowlist).
func (s *Service) allowlistText(ctx context.Context, r *request, _ pass) error {
	if !s.cfg.Datasets.Enabled() {
		return nil
	}
	err := s.checkText(r)
	if err == nil {
		err = s.checkGraphs(ctx, r)
	}
	if err != nil {
		return bqerr.From(err).WithQuery(r.sql)
	}
	return nil
}

// allowlistPlan checks every table and object the dry run reports against
// --datasets.
func (s *Service) allowlistPlan(ctx context.Context, r *request, plan *dryRunResult, _ pass) error {
	if !s.cfg.Datasets.Enabled() {
		return nil
	}
	if err := s.checkPlan(ctx, r, plan); err != nil {
		return bqerr.From(err).WithQuery(r.sql)
	}
	return nil
}

// remember keeps what the dry run settled about the query for the next
// call of the same text (admitting only); it refuses nothing.
func (s *Service) remember(_ context.Context, r *request, plan *dryRunResult, p pass) error {
	if p == admitting {
		// A graph's definition can change under the same text: its
		// query is dry-run again each time.
		s.verdicts.add(r, verdict{statementType: plan.StatementType, datasetsAllowed: s.cfg.Datasets.Enabled() && allAllowed(s, plan) && !readsGraph(r)})
	}
	return nil
}

// callersEstimate is the caller's own check of the estimate
// (request.checkEstimate: RunToTable's), with cost advice on a refusal.
func (s *Service) callersEstimate(ctx context.Context, r *request, plan *dryRunResult, _ pass) error {
	if r.checkEstimate == nil {
		return nil
	}
	if err := r.checkEstimate(plan.TotalBytesProcessed); err != nil {
		return s.adviseRefusal(ctx, r, err)
	}
	return nil
}

// bytesCap is --max-bytes-billed (or the call's lower maxBytesBilled)
// against the estimate. Admitting, BigQuery enforces it: the job carries
// it as maximumBytesBilled and is refused at no cost when it would bill
// more (bytesBilledLimitExceeded, with advice: execute.go), which an
// estimate cannot decide (the cache and clustering bill less). Predicting
// says the estimate passes it.
func (s *Service) bytesCap(_ context.Context, r *request, plan *dryRunResult, p pass) error {
	if p == admitting || plan.TotalBytesProcessed <= r.maxBytesBilled {
		return nil
	}
	return fmt.Errorf("it reads more bytes than the server cap of %d; select fewer columns or filter on partition/cluster columns", r.maxBytesBilled)
}

// budgeted reports whether a job must hold its estimate before it starts:
// a budget is in force, or a confirmation threshold needs the estimate.
func (s *Service) budgeted() bool { return s.cfg.State.Limited() || s.cfg.ConfirmAboveBytes > 0 }

// budget holds the estimate in the caller's budget (admitting) or checks
// that it fits (predicting).
func (s *Service) budget(ctx context.Context, r *request, plan *dryRunResult, p pass) error {
	if p == predicting {
		if err := s.cfg.State.Check(ctx, auth.CallerFrom(ctx).Principal, plan.TotalBytesProcessed); err != nil {
			return errors.New(bqerr.From(err).Message + ".")
		}
		return nil
	}
	if !s.budgeted() {
		return nil
	}
	if err := s.reserve(ctx, r, plan.TotalBytesProcessed); err != nil {
		return s.adviseRefusal(ctx, r, err)
	}
	return nil
}

// confirmation asks the user to approve a query above
// --confirm-above-bytes (admitting; the hold is given back when they do
// not), or notes that execute_sql would ask (predicting).
func (s *Service) confirmation(ctx context.Context, r *request, plan *dryRunResult, p pass) error {
	if p == predicting {
		if c := s.cfg.ConfirmAboveBytes; c > 0 && plan.TotalBytesProcessed > c {
			return wouldAsk{"execute_sql will ask the user to confirm it first (above " + governance.FormatBytes(c) + ")."}
		}
		return nil
	}
	if err := s.confirm(ctx, plan.TotalBytesProcessed, r.location); err != nil {
		s.release(ctx, r)
		return s.adviseRefusal(ctx, r, err)
	}
	return nil
}
