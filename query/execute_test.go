package query

import (
	"context"
	"net/http"
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

// withOpLog gives s an executor whose query and write policies differ in
// their attempt caps (3 and 2), and that records each attempt's operation.
func withOpLog(t *testing.T, s *Service) *opLog {
	t.Helper()
	log := &opLog{}
	rcfg := resilience.Defaults()
	rcfg.Policies[resilience.Query] = resilience.Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Multiplier: 2}
	rcfg.Policies[resilience.Write] = resilience.Policy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Multiplier: 2}
	exec, err := resilience.NewExecutor(rcfg, resilience.Hooks{Attempt: log.attempt})
	if err != nil {
		t.Fatalf("resilience.NewExecutor: %v", err)
	}
	s.exec = exec
	return log
}

func countInserts(requests []string) int {
	n := 0
	for _, r := range requests {
		if strings.HasPrefix(r, http.MethodPost+" /projects/p/jobs?") {
			n++
		}
	}
	return n
}

// TestWritesRunUnderWritePolicy: with --allow-writes, DML, DDL and scripts
// run every call of their job (insert, reading, statistics) under the write
// policy; a SELECT stays under the query policy.
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
			s := newPartialService(t, newFakeBigQuery(t, func(int, int) bool { return false }))
			log := withOpLog(t, s)
			if _, err := s.Execute(context.Background(), ExecuteInput{SQL: tc.sql}); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			ops := log.all()
			if len(ops) < 3 { // insert, read, statistics
				t.Fatalf("attempts = %v, want at least insert, read and statistics", ops)
			}
			for i, op := range ops {
				if op != tc.want {
					t.Errorf("attempt %d ran under %q, want %q (all: %v)", i+1, op, tc.want, ops)
				}
			}
		})
	}
}

// TestWriteRetriesFollowWritePolicy: a failing insert is tried as often as
// the write policy allows for DML, and as the query policy allows for a
// SELECT, counted at the fake BigQuery.
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
		s := newPartialService(t, fake)
		withOpLog(t, s)
		if _, err := s.Execute(context.Background(), ExecuteInput{SQL: tc.sql}); err == nil {
			t.Fatalf("%s: Execute succeeded against a failing insert", tc.sql)
		}
		if n := countInserts(fake.log()); n != tc.attempts {
			t.Errorf("%s: %d job inserts reached BigQuery, want %d; requests:\n%s", tc.sql, n, tc.attempts, strings.Join(fake.log(), "\n"))
		}
	}
}
