package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/iterator"
)

// smallQuery is the P1 query; %d makes the text distinct per call when the
// verdict is to be cold (a different text is a different cache key).
const smallQuery = "SELECT order_id, status, total, %d AS n FROM `demo-project.shop.orders` ORDER BY order_id"

// p1 compares execute_sql with Query.Read, verdict cold then warm.
func (b *bench) p1(ctx context.Context, srv *serverProc) error {
	// One call each first: connections, the server's first-call set-up.
	if err := b.compare(ctx, srv, "warm-up", 1, func(int) string { return fmt.Sprintf(smallQuery, -1) }); err != nil {
		return err
	}
	if err := b.compare(ctx, srv, "verdict cold (distinct SQL)", b.o.calls, func(int) string { b.distinct++; return fmt.Sprintf(smallQuery, 1000+b.distinct) }); err != nil {
		return err
	}
	return b.compare(ctx, srv, "verdict warm (same SQL)", b.o.calls, func(int) string { return fmt.Sprintf(smallQuery, 1) })
}

func (b *bench) p1Slow(ctx context.Context, srv *serverProc) error {
	b.wire.setDelay(b.o.delay)
	defer b.wire.setDelay(0)
	return b.p1(ctx, srv)
}

// compare times n interleaved rounds of calls: execute_sql, then
// Query.Read of the same SQL, and (with -baseline) execute_sql of the
// baseline server, in an order that rotates from round to round.
func (b *bench) compare(ctx context.Context, srv *serverProc, name string, n int, sql func(int) string) error {
	sides := []*callSide{{name: name, proc: srv, wires: map[int]int{}}}
	if b.base != nil {
		sides = append(sides, &callSide{name: name + " (baseline)", proc: b.base, wires: map[int]int{}})
	}
	for _, s := range sides {
		if err := s.startCPU(); err != nil {
			return err
		}
	}
	var raw sample
	for i := range n {
		q := sql(i)
		// Each round calls every side once; with a baseline the order
		// rotates, so neither server always follows the other.
		turns := []func() error{
			func() error { return b.timeCall(ctx, sides[0], q) },
			func() error {
				start := time.Now()
				if err := b.read(ctx, q); err != nil {
					return err
				}
				raw = append(raw, time.Since(start))
				return nil
			},
		}
		for _, s := range sides[1:] {
			turns = append(turns, func() error { return b.timeCall(ctx, s, q) })
		}
		for j := range turns {
			k := j
			if len(sides) > 1 {
				k = (i + j) % len(turns)
			}
			if err := turns[k](); err != nil {
				return err
			}
		}
	}
	if n <= 1 {
		return nil
	}
	for _, s := range sides {
		cpu, err := threadCPU(s.proc.pid())
		if err != nil {
			return err
		}
		row(s.name, s.latency, raw, s.own, (cpu-s.cpu)/time.Duration(n))
		fmt.Printf("%-34s requests per execute_sql: %v (count: calls)\n", "", s.wires)
	}
	return nil
}

// callSide is one server's half of a comparison with the raw client.
type callSide struct {
	name         string
	proc         *serverProc
	latency, own sample
	wires        map[int]int
	cpu          time.Duration // the process's CPU time at the start
}

func (s *callSide) startCPU() (err error) {
	s.cpu, err = threadCPU(s.proc.pid())
	return err
}

// timeCall times one execute_sql of q on s's server and what it sent to
// BigQuery.
func (b *bench) timeCall(ctx context.Context, s *callSide, q string) error {
	b.wire.reset()
	start := time.Now()
	if _, err := s.proc.result(ctx, "execute_sql", map[string]any{"sql": q}); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	d := time.Since(start)
	reqs, spent := b.wire.seen()
	s.latency, s.own = append(s.latency, d), append(s.own, d-spent)
	s.wires[len(reqs)]++
	return nil
}

// read runs sql with the raw client's Query.Read and reads every row.
func (b *bench) read(ctx context.Context, sql string) error {
	it, err := b.raw.Query(sql).Read(ctx)
	if err != nil {
		return fmt.Errorf("Query.Read: %w", err)
	}
	for {
		var r []bigquery.Value
		err := it.Next(&r)
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading rows: %w", err)
		}
	}
}

// requestsPerCall prints the requests each tool call sends to BigQuery.
func (b *bench) requestsPerCall(ctx context.Context, srv *serverProc) error {
	out, err := srv.call(ctx, "execute_sql", map[string]any{"sql": fmt.Sprintf(smallQuery, 7)})
	if err != nil {
		return err
	}
	jobID, _ := out["jobId"].(string)
	calls := []struct {
		label, tool string
		args        map[string]any
	}{
		{"list_datasets", "list_datasets", nil},
		{"list_tables", "list_tables", map[string]any{"dataset": "shop"}},
		{"get_table_schema (first)", "get_table_schema", map[string]any{"table": "shop.customers"}},
		{"get_table_schema (cached)", "get_table_schema", map[string]any{"table": "shop.customers"}},
		{"search_columns", "search_columns", map[string]any{"query": "customer"}},
		{"preview_table", "preview_table", map[string]any{"table": "shop.orders", "maxRows": 5}},
		{"dry_run_sql", "dry_run_sql", map[string]any{"sql": fmt.Sprintf(smallQuery, 8)}},
		{"execute_sql (verdict cold)", "execute_sql", map[string]any{"sql": fmt.Sprintf(smallQuery, 9)}},
		{"execute_sql (verdict warm)", "execute_sql", map[string]any{"sql": fmt.Sprintf(smallQuery, 9)}},
		{"get_query_results", "get_query_results", map[string]any{"jobId": jobID}},
		{"get_job", "get_job", map[string]any{"jobId": jobID}},
		{"cancel_job", "cancel_job", map[string]any{"jobId": jobID}},
		{"health", "health", nil},
	}
	for _, c := range calls {
		b.wire.reset()
		_, err := srv.call(ctx, c.tool, c.args)
		reqs, _ := b.wire.seen()
		status := ""
		if err != nil {
			status = " (error: " + firstLine(err.Error()) + ")"
		}
		fmt.Printf("%-28s %d  %s%s\n", c.label, len(reqs), strings.Join(reqs, ", "), status)
	}
	return nil
}

// p2 compares a cached get_table_schema with the raw client's tables.get.
func (b *bench) p2(ctx context.Context, srv *serverProc) error {
	args := map[string]any{"table": "shop.orders"}
	if _, err := srv.call(ctx, "get_table_schema", args); err != nil {
		return err
	}
	var server, raw, own sample
	cpu0, err := threadCPU(srv.pid())
	if err != nil {
		return err
	}
	for range b.o.calls {
		b.wire.reset()
		start := time.Now()
		if _, err := srv.result(ctx, "get_table_schema", args); err != nil {
			return err
		}
		d := time.Since(start)
		_, spent := b.wire.seen()
		server, own = append(server, d), append(own, d-spent)
		start = time.Now()
		if _, err := b.raw.Dataset("shop").Table("orders").Metadata(ctx); err != nil {
			return fmt.Errorf("tables.get: %w", err)
		}
		raw = append(raw, time.Since(start))
	}
	cpu1, err := threadCPU(srv.pid())
	if err != nil {
		return err
	}
	row("get_table_schema cached", server, raw, own, (cpu1-cpu0)/time.Duration(b.o.calls))
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
