package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
)

// advice prints what cost advice adds to dry_run_sql: requests at the
// wire and time, side by side with a plain dry run (a query that gets no
// advice), interleaved in one run. The sample table is partitioned by day
// and clustered (tables.insert keeps both); a faults.Plan stands in for
// what the emulator's planner lacks (a dry run's estimate and tables read,
// INFORMATION_SCHEMA.PARTITIONS), behind the counting proxy. The first
// call with advice finds the caches cold (tables.get, the partitions'
// lookup); the later ones reuse them for 5 minutes.
func (b *bench) advice(ctx context.Context, _ *serverProc) error {
	if err := emulator.CreatePartitionedSample(ctx, b.emu.URL); err != nil {
		return err
	}
	planner, err := faults.New(b.emu.URL)
	if err != nil {
		return err
	}
	defer planner.Close()
	parts := map[string]int64{}
	for i := range 60 {
		parts[time.Now().UTC().AddDate(0, 0, -i).Format("20060102")] = 1 << 30
	}
	planner.SetPlan(&faults.Plan{Project: emulator.Project, Dataset: "shop", Table: "events_by_day", Bytes: 30 << 30, Partitions: parts})
	w, err := newWire(planner.URL)
	if err != nil {
		return err
	}
	defer w.close()
	srv, err := b.start(ctx, "--endpoint", w.URL)
	if err != nil {
		return err
	}
	defer srv.close()

	plain := map[string]any{"sql": "SELECT customer_id, order_id FROM shop.orders"}
	advised := map[string]any{"sql": "SELECT customer_id, amount FROM shop.events_by_day"}
	call := func(args map[string]any) (time.Duration, []string, time.Duration, int, error) {
		w.reset()
		start := time.Now()
		out, err := srv.call(ctx, "dry_run_sql", args)
		d := time.Since(start)
		reqs, spent := w.seen()
		n := 0
		if a, ok := out["advice"].([]any); ok {
			n = len(a)
		}
		return d, reqs, d - spent, n, err
	}
	// Warm the connection with a plain call, then the cold advice call.
	if _, _, _, _, err := call(plain); err != nil {
		return err
	}
	d, reqs, own, n, err := call(advised)
	if err != nil {
		return err
	}
	fmt.Printf("%-34s %9s (server own %9s), %d advice, %d requests: %s\n", "with advice, caches cold", ms(d), ms(own), n, len(reqs), strings.Join(reqs, ", "))
	var plainT, plainOwn, advT, advOwn sample
	plainReqs, advReqs := map[int]int{}, map[int]int{}
	for range b.o.calls {
		d, reqs, own, _, err := call(plain)
		if err != nil {
			return err
		}
		plainT, plainOwn, plainReqs[len(reqs)] = append(plainT, d), append(plainOwn, own), plainReqs[len(reqs)]+1
		d, reqs, own, _, err = call(advised)
		if err != nil {
			return err
		}
		advT, advOwn, advReqs[len(reqs)] = append(advT, d), append(advOwn, own), advReqs[len(reqs)]+1
	}
	fmt.Printf("%-34s p50 %9s p90 %9s (server own p50 %9s), requests per call: %v\n", "plain dry run", ms(plainT.quantile(.5)), ms(plainT.quantile(.9)), ms(plainOwn.quantile(.5)), plainReqs)
	fmt.Printf("%-34s p50 %9s p90 %9s (server own p50 %9s), requests per call: %v\n", "with advice, caches warm", ms(advT.quantile(.5)), ms(advT.quantile(.9)), ms(advOwn.quantile(.5)), advReqs)
	return nil
}
