package query

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// opLog records the operation of every attempt the executor runs.
type opLog struct {
	mu  sync.Mutex
	ops []resilience.Operation
}

func (l *opLog) attempt(_ context.Context, op resilience.Operation, _ int, _ error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = append(l.ops, op)
}

func (l *opLog) all() []resilience.Operation {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]resilience.Operation(nil), l.ops...)
}

// withOpLog returns a log and the configure that gives a Service an
// executor whose query and write policies differ in their attempt caps (3
// and 2), and that records each attempt's operation in the log.
func withOpLog(t *testing.T) (*opLog, func(*Config)) {
	t.Helper()
	log := &opLog{}
	rcfg := resilience.Defaults()
	rcfg.Retry[resilience.Query] = resilience.Policy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Multiplier: 2}
	rcfg.Retry[resilience.Write] = resilience.Policy{Attempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Multiplier: 2}
	exec, err := resilience.NewExecutor(rcfg, resilience.Hooks{Attempt: log.attempt})
	if err != nil {
		t.Fatalf("resilience.NewExecutor: %v", err)
	}
	return log, func(c *Config) { c.Executor = exec }
}

func countQueries(requests []string) int {
	n := 0
	for _, r := range requests {
		if strings.HasPrefix(r, http.MethodPost+" /projects/p/queries?") {
			n++
		}
	}
	return n
}

// TestWritesRunUnderWritePolicy: with --allow-writes, DML, DDL and scripts
// run every call of their job (jobs.query, reading further pages) under the
// write policy; a SELECT stays under the query policy.
func TestWritesRunUnderWritePolicy(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want resilience.Operation
	}{
		{"INSERT INTO t (n) VALUES (1)", resilience.Write},
		{"UPDATE t SET n = 2 WHERE TRUE", resilience.Write},
		{"CREATE TABLE t2 (n INT64)", resilience.Write},
		{"SELECT 1; SELECT 2", resilience.Write},
		{"SELECT n FROM t", resilience.Query},
		{"WITH x AS (SELECT 1 AS n) SELECT n FROM x", resilience.Query},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			log, logged := withOpLog(t)
			s := newPartialService(t, newFakeBigQuery(t, func(int, int) bool { return false }), logged)
			if _, err := s.Execute(context.Background(), ExecuteInput{SQL: tc.sql}); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			ops := log.all()
			want := 3 // jobs.query and two more pages of the fake's five rows
			if strings.HasPrefix(tc.sql, "INSERT") || strings.HasPrefix(tc.sql, "UPDATE") {
				want = 1 // DML: jobs.query alone
			}
			if len(ops) != want {
				t.Fatalf("attempts = %v, want %d", ops, want)
			}
			for i, op := range ops {
				if op != tc.want {
					t.Errorf("attempt %d ran under %q, want %q (all: %v)", i+1, op, tc.want, ops)
				}
			}
		})
	}
}

// TestWriteRetriesFollowWritePolicy: a failing jobs.query is tried as often
// as the write policy allows for DML, and as the query policy allows for a
// SELECT, counted at the fake BigQuery, every attempt with the same
// requestId.
func TestWriteRetriesFollowWritePolicy(t *testing.T) {
	for _, tc := range []struct {
		sql      string
		attempts int
	}{
		{"DELETE FROM t WHERE n = 1", 2},
		{"SELECT n FROM t", 3},
	} {
		fake := newFakeBigQuery(t, func(int, int) bool { return false })
		fake.failInsert = true
		_, logged := withOpLog(t)
		s := newPartialService(t, fake, logged)
		if _, err := s.Execute(context.Background(), ExecuteInput{SQL: tc.sql}); err == nil {
			t.Fatalf("%s: Execute succeeded against a failing insert", tc.sql)
		}
		if n := countQueries(fake.log()); n != tc.attempts {
			t.Errorf("%s: %d jobs.query requests reached BigQuery, want %d; requests:\n%s", tc.sql, n, tc.attempts, strings.Join(fake.log(), "\n"))
		}
		if ids := fake.requestIDs(); len(ids) == 0 || ids[0] == "" || slices.Compact(slices.Clone(ids))[0] != ids[0] || len(slices.Compact(slices.Clone(ids))) != 1 {
			t.Errorf("%s: requestIds across attempts = %q, want one, repeated", tc.sql, ids)
		}
	}
}
