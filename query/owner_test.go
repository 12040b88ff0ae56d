package query

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

func as(principal string) context.Context {
	return auth.WithCaller(context.Background(), auth.Caller{Principal: principal})
}

// jobTools calls get_job, get_query_results and cancel_job on id as ctx's
// caller, and returns their errors.
func jobTools(s *Service, ctx context.Context, id string) map[string]error {
	_, getErr := s.GetJob(ctx, JobInput{JobID: id})
	_, resErr := s.GetResults(ctx, GetResultsInput{JobID: id, WaitSeconds: 1})
	_, cancelErr := s.CancelJob(ctx, JobInput{JobID: id})
	return map[string]error{"get_job": getErr, "get_query_results": resErr, "cancel_job": cancelErr}
}

// answer is an error as the agent reads it, with the job ID made generic
// so that answers about different IDs compare.
func answer(t *testing.T, err error, id string) string {
	t.Helper()
	e, ok := bqerr.As(err)
	if !ok {
		t.Fatalf("error %v is not a bqerr.Error", err)
	}
	b, _ := json.Marshal(e)
	return strings.ReplaceAll(string(b), id, "ID")
}

// TestJobsBelongToTheirCaller: on a server with several principals, B's
// get_job, get_query_results and cancel_job on A's running, finished and
// failed jobs answer exactly as for a job ID that names no job, make no
// request naming the job and cancel nothing; A's own calls work.
func TestJobsBelongToTheirCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newLedgerBigQuery(t, 10*mib, 10*mib, 0)
		s := newLedgerService(t, fake, 0, 0, func(c *Config) { c.MultiPrincipal = true })
		alice, bob := as("token:1"), as("token:2")

		jobs := map[string]string{}
		out, err := s.Execute(alice, ExecuteInput{SQL: "SELECT n FROM sales.t"})
		if err != nil {
			t.Fatal(err)
		}
		jobs["finished"] = out.JobID
		fake.runFor = time.Minute
		if out, err = s.Execute(alice, ExecuteInput{SQL: "SELECT n FROM sales.t", WaitSeconds: 1}); err != nil || out.JobComplete {
			t.Fatalf("Execute = %+v, %v; want a running job", out, err)
		}
		jobs["running"] = out.JobID
		fake.runFor = untilFinished
		if out, err = s.Execute(alice, ExecuteInput{SQL: "SELECT 1/0 AS fail FROM sales.t", WaitSeconds: 1}); err != nil || out.JobComplete {
			t.Fatalf("Execute = %+v, %v; want a job handed back unfinished", out, err)
		}
		jobs["failed"] = out.JobID
		fake.finish(out.JobID) // it fails after its call returned

		missing := jobTools(s, bob, "job_404")
		for tool, err := range missing {
			if e, ok := bqerr.As(err); !ok || e.Code != bqerr.NotFound {
				t.Fatalf("%s of a job ID that names no job = %v, want NOT_FOUND", tool, err)
			}
		}
		for kind, id := range jobs {
			before := fake.requestsFor(id)
			for tool, err := range jobTools(s, bob, id) {
				if got, want := answer(t, err, id), answer(t, missing[tool], "job_404"); got != want {
					t.Errorf("bob's %s of alice's %s job answers\n%s\nnot as for a missing job:\n%s", tool, kind, got, want)
				}
			}
			if n := fake.requestsFor(id) - before; n != 0 {
				t.Errorf("bob's calls on alice's %s job made %d requests naming it", kind, n)
			}
		}
		if j, _ := fake.job(jobs["running"]); j.cancelled {
			t.Error("bob cancelled alice's running job")
		}

		// Alice reads her own.
		if _, err := s.GetResults(alice, GetResultsInput{JobID: jobs["finished"]}); err != nil {
			t.Errorf("alice's get_query_results: %v", err)
		}
		got, err := s.GetJob(alice, JobInput{JobID: jobs["failed"]})
		if err != nil || got.Error == nil || !strings.Contains(got.Error.Message, "Division by zero") {
			t.Errorf("alice's get_job of her failed job = %+v, %v; want its error", got, err)
		}
		if _, err := s.CancelJob(alice, JobInput{JobID: jobs["running"]}); err != nil {
			t.Errorf("alice's cancel_job: %v", err)
		}
		if j, _ := fake.job(jobs["running"]); !j.cancelled {
			t.Error("alice could not cancel her running job")
		}
	})
}

// TestForeignJobsOnlyForOneLocalUser: a job this server did not start is
// read over stdio without an allowlist (one principal, as before), and
// answered as not found, with no request, when the server has several
// principals.
func TestForeignJobsOnlyForOneLocalUser(t *testing.T) {
	fake := newLedgerBigQuery(t, 10*mib, 10*mib, 0)
	fake.jobs["console_job"] = &ledgerJob{billed: 5}
	onePrincipal := newLedgerService(t, fake, 0, 0)
	if _, err := onePrincipal.GetJob(context.Background(), JobInput{JobID: "console_job"}); err != nil {
		t.Errorf("stdio get_job of a console job: %v", err)
	}
	several := newLedgerService(t, fake, 0, 0, func(c *Config) { c.MultiPrincipal = true })
	before := fake.requestsFor("console_job")
	_, err := several.GetJob(as("token:1"), JobInput{JobID: "console_job"})
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.NotFound {
		t.Errorf("get_job of a console job with several principals = %v, want NOT_FOUND", err)
	}
	if n := fake.requestsFor("console_job") - before; n != 0 {
		t.Errorf("%d requests for a job the server refuses", n)
	}
}

// TestForgottenJobSaysWhy: a job whose record was evicted is refused with
// the reason for its owner, and as not found for anyone else.
func TestForgottenJobSaysWhy(t *testing.T) {
	fake := newLedgerBigQuery(t, 10*mib, 10*mib, 0)
	s := newLedgerService(t, fake, 0, 0, func(c *Config) {
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{}), governance.NewJobStore(governance.JobStoreConfig{Size: 1}))
		c.MultiPrincipal = true
	})
	alice := as("token:1")
	first, err := s.Execute(alice, ExecuteInput{SQL: "SELECT n FROM sales.t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(alice, ExecuteInput{SQL: "SELECT n FROM sales.t"}); err != nil {
		t.Fatal(err)
	}
	_, err = s.GetJob(alice, JobInput{JobID: first.JobID})
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.NotFound || !strings.Contains(e.Message, "evicted") || !strings.Contains(e.Message, "last 1 jobs") {
		t.Errorf("owner's get_job of an evicted job = %v, want NOT_FOUND saying it was evicted", err)
	}
	_, err = s.GetJob(as("token:2"), JobInput{JobID: first.JobID})
	if e, ok := bqerr.As(err); !ok || strings.Contains(e.Message, "evicted") {
		t.Errorf("another principal learns of an evicted job: %v", err)
	}
}

// TestErrorOfJobThroughViewIsWithheld: under an allowlist, get_job of a
// failed job that read through an authorized view gives its state and IDs,
// not BigQuery's error text (which may quote what the view hides).
func TestErrorOfJobThroughViewIsWithheld(t *testing.T) {
	fake := newLedgerBigQuery(t, 10*mib, 10*mib, 0)
	fake.jobs["view_job"] = &ledgerJob{failed: true}
	fake.jobs["plain_job"] = &ledgerJob{failed: true}
	allow, err := governance.ParseAllowlist("sales", "p")
	if err != nil {
		t.Fatal(err)
	}
	s := newLedgerService(t, fake, 0, 0, func(c *Config) { c.Datasets = allow })
	ctx := context.Background()
	_ = s.cfg.State.RecordJob(ctx, governance.JobRecord{ID: "view_job", Location: "US", ThroughView: true})
	_ = s.cfg.State.RecordJob(ctx, governance.JobRecord{ID: "plain_job", Location: "US"})

	got, err := s.GetJob(ctx, JobInput{JobID: "view_job"})
	if err != nil {
		t.Fatal(err)
	}
	if got.State != "DONE" || got.JobID != "view_job" || got.Error == nil || strings.Contains(got.Error.Message, "secret") || !strings.Contains(got.Error.Message, "withheld") {
		t.Errorf("get_job through a view = %+v (error %+v), want state and IDs with the error text withheld", got, got.Error)
	}
	_, err = s.GetResults(ctx, GetResultsInput{JobID: "view_job"})
	if err == nil || strings.Contains(err.Error(), "Division") {
		t.Errorf("get_query_results through a view = %v, want the error text withheld", err)
	}
	if got, err := s.GetJob(ctx, JobInput{JobID: "plain_job"}); err != nil || got.Error == nil || !strings.Contains(got.Error.Message, "Division by zero") {
		t.Errorf("get_job of a job that read only allowed tables = %+v, %v; want its error", got, err)
	}
}
