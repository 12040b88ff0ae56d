package integration_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// TestAdviceReachesAnAgentOverStdio: the built binary over stdio, against
// the emulator holding a partitioned, clustered sample table, with a proxy
// standing in for what the emulator's planner lacks (faults.Plan: a dry
// run's estimate and tables read, INFORMATION_SCHEMA.PARTITIONS). An agent
// gets dry_run_sql's advice naming the partition column with figures from
// the partitions' sizes, and the same advice in a budget's refusal.
func TestAdviceReachesAnAgentOverStdio(t *testing.T) {
	if err := emulator.CreatePartitionedSample(context.Background(), emu.URL); err != nil {
		t.Fatal(err)
	}
	p, err := faults.New(emu.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Two 4 MiB partitions 2 and 3 days old and an old 8 MiB one: a day
	// boundary passed during the test moves none across the 7-day window.
	now := time.Now().UTC()
	day := func(n int) string { return now.AddDate(0, 0, -n).Format("20060102") }
	const mib = 1 << 20
	p.SetPlan(&faults.Plan{Project: emulator.Project, Dataset: "shop", Table: "events_by_day", Bytes: 8 * mib,
		Partitions: map[string]int64{day(2): 4 * mib, day(3): 4 * mib, day(100): 8 * mib}})

	// 16 MiB of budget: the 10 MB lookup fits, the 8 MiB query then not.
	cs := connectStdio(t, "2025-06-18", "--endpoint", p.URL, "--max-bytes-per-day", "16777216")
	const sql = "SELECT customer_id, amount FROM shop.events_by_day"
	out := ok[query.DryRunOutput](t, cs, "dry_run_sql", map[string]any{"sql": sql})
	raw, _ := json.Marshal(out.Advice)
	t.Logf("dry_run_sql advice: %s", raw)
	// The query reads 8 of the table's 16 MiB: half of each partition.
	reads := map[string]int64{}
	var head query.Advice
	for _, a := range out.Advice {
		for _, w := range []string{"last 1 day", "last 7 days", "last 30 days"} {
			if strings.Contains(a.Change, "("+w+")") {
				if a.ReadsBytes == nil {
					t.Errorf("%s: no figure", w)
				} else {
					reads[w] = *a.ReadsBytes
				}
			}
		}
		if strings.Contains(a.Change, "partitioned by DAY on day (DATE)") {
			head = a
		}
	}
	if _, ok := reads["last 1 day"]; !ok || reads["last 1 day"] != 0 || reads["last 7 days"] != 4*mib || reads["last 30 days"] != 4*mib {
		t.Errorf("figures = %v, want nothing for a day and 4 MiB for 7 and 30 days", reads)
	}
	if !strings.Contains(head.Method, "INFORMATION_SCHEMA.PARTITIONS") || !strings.Contains(head.Method, "50%") {
		t.Errorf("no partition advice saying how its figures were obtained: %s", raw)
	}
	if !strings.Contains(string(raw), "clustered by customer_id") {
		t.Errorf("no clustering advice: %s", raw)
	}
	e := fails(t, cs, "execute_sql", map[string]any{"sql": sql})
	b, _ := json.Marshal(e)
	t.Logf("execute_sql refusal: %d bytes: %s", len(b), b)
	if e.Code != "RESOURCE_EXHAUSTED" || !strings.Contains(strings.Join(e.Details.Advice, "\n"), "(last 7 days): reads 4.0 MiB [partition sizes]") ||
		!strings.Contains(e.Details.Advice[0], "(last 1 day): reads 0 B") || len(b) >= 2048 {
		t.Errorf("execute_sql refusal = %s, want the budget's refusal with the advice, under 2 KB", b)
	}
	lookups := 0
	for _, r := range p.Requests() {
		if r.Fault == "planned" {
			lookups++
		}
	}
	if lookups != 1 {
		t.Errorf("INFORMATION_SCHEMA.PARTITIONS lookups = %d, want 1 (cached for the refusal)", lookups)
	}
}
