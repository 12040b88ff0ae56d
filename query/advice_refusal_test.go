package query

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// wantRefusalAdvice checks that err is a structured refusal carrying the
// day-window advice of newAdviceService's table, under 2 KB in all.
func wantRefusalAdvice(t *testing.T, e *bqerr.Error) {
	t.Helper()
	b := e.JSON()
	t.Logf("refusal with advice: %d bytes: %s", len(b), b)
	if len(b) >= 2048 {
		t.Errorf("refusal with advice is %d bytes, want under 2 KB", len(b))
	}
	joined := strings.Join(e.Details.Advice, "\n")
	// 30 of 60 MiB read: the last day's 1 MiB partition halved.
	if !strings.Contains(joined, "(last 1 day): reads 512.0 KiB [partition sizes]") ||
		!strings.Contains(joined, "INFORMATION_SCHEMA.PARTITIONS") {
		t.Errorf("advice lacks the partition figures and their method: %q", e.Details.Advice)
	}
	if first := e.Details.Advice[0]; !strings.Contains(first, "last 1 day") {
		t.Errorf("advice not cheapest first: %q", e.Details.Advice)
	}
}

func TestOverCapRefusalCarriesAdvice(t *testing.T) {
	s, fake := newAdviceService(t, false, func(c *Config) { c.MaxBytesBilled = 10 << 20 })
	_, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT * FROM sales.events"})
	e := bqerr.From(err)
	if err == nil || e.Code != bqerr.ResourceExhausted || e.Details.Reason != "bytesBilledLimitExceeded" {
		t.Fatalf("Execute = %v, want BigQuery's bytes cap refusal", err)
	}
	wantRefusalAdvice(t, e)
	if fake.jobs != 0 {
		t.Errorf("jobs that ran = %d, want 0", fake.jobs)
	}
}

func TestBudgetRefusalCarriesAdvice(t *testing.T) {
	// 20 MiB a day: the 10 MB lookup fits, the 30 MiB query does not.
	s, _ := newAdviceService(t, false, func(c *Config) {
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerDay: 20 << 20}), nil)
	})
	_, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT * FROM sales.events"})
	e := bqerr.From(err)
	if err == nil || e.Code != bqerr.ResourceExhausted || !strings.Contains(e.Message, "budget") {
		t.Fatalf("Execute = %v, want a budget refusal", err)
	}
	wantRefusalAdvice(t, e)
}

func TestConfirmationCarriesAdvice(t *testing.T) {
	s, fake := newAdviceService(t, false, func(c *Config) { c.ConfirmAboveBytes = 1 << 20 })
	_, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT * FROM sales.events"})
	var need *ConfirmationRequired
	if !errors.As(err, &need) {
		t.Fatalf("Execute = %v, want a confirmation request", err)
	}
	if !strings.Contains(need.Message(), "To read less: WHERE ts >= ") {
		t.Errorf("the user's question lacks the cheapest change: %q", need.Message())
	}
	wantRefusalAdvice(t, need.AsError())
	// Declined: the agent learns what would read less.
	_, err = s.Execute(WithAnswer(context.Background(), Declined), ExecuteInput{SQL: "SELECT * FROM sales.events"})
	if e := bqerr.From(err); e.Code != bqerr.PermissionDenied || len(e.Details.Advice) == 0 {
		t.Errorf("declined = %v (advice %q), want the refusal with advice", err, e.Details.Advice)
	}
	if fake.jobs != 0 {
		t.Errorf("jobs that ran = %d, want 0", fake.jobs)
	}
}

// A refusal's advice stays under 2 KB with three partitioned, clustered
// tables and a wide SELECT *: lines are left out, never cut.
func TestRefusalAdviceIsBounded(t *testing.T) {
	var adv []Advice
	for i := range 3 {
		tbl := "p.sales.events_with_a_long_name_" + strconv.Itoa(i)
		adv = append(adv, Advice{Change: tbl + " requires a filter on event_timestamp (TIMESTAMP): BigQuery refuses the query without one", refused: true},
			Advice{Change: tbl + " is partitioned by DAY on event_timestamp (TIMESTAMP); the query does not filter on it, so it reads every partition",
				Method: "partition sizes: INFORMATION_SCHEMA.PARTITIONS sizes x the 100% of the table this query reads (it bills BigQuery's 10 MB minimum, counted in your spend)"})
		for _, d := range adviceWindows {
			adv = append(adv, Advice{Change: "WHERE event_timestamp >= TIMESTAMP(DATE_SUB(CURRENT_DATE(), INTERVAL " + strconv.Itoa(d) + " DAY)) (last n days)", ReadsBytes: measured(int64(d) << 30), Method: methodPartitions})
		}
	}
	lines := adviceLines(adv, maxRefusalAdviceBytes)
	e := bqerr.Newf(bqerr.ResourceExhausted, "the query would process about 1.2 TiB but 100.0 GiB is left of this server's bytes budget (20.0 GiB is held by queries still running)").
		WithHint("Narrow the query: the budget is 1.0 TiB per session and 10.0 TiB per day; ask the user to raise it if more is needed.").
		WithQuery(strings.Repeat("SELECT x ", 40)).WithAdvice(lines)
	if n := len(e.JSON()); n >= 2048 || len(lines) == 0 || len(lines) == len(adv) {
		t.Errorf("refusal = %d bytes with %d of %d lines, want under 2 KB with some left out", n, len(lines), len(adv))
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, "]") && !strings.HasSuffix(l, "one") {
			t.Errorf("a line was cut: %q", l)
		}
	}
}

func TestRangePartitionAdviceHasFiguresForRanges(t *testing.T) {
	s, fake := newAdviceService(t, false, func(c *Config) {
		c.Catalog = fakeCatalog{layouts: map[string]*bqtype.TableLayout{
			"p.sales.events": {Type: "TABLE", NumBytes: 100 * partitionMiB,
				Partitioning: &bqtype.PartitionLayout{Type: "RANGE", Column: "customer_id", ColumnType: "INTEGER", RangeStart: 0, RangeEnd: 1000, RangeInterval: 10}},
		}}
	})
	// 100 ranges of 1 MiB (0, 10, … 990; "90" sorts after "100" as text)
	// and a NULL partition; the query reads half the table.
	fake.partitions = map[string]int64{"__NULL__": 7 * partitionMiB}
	for i := range 100 {
		fake.partitions[strconv.Itoa(i*10)] = partitionMiB
	}
	fake.bytes["SELECT * FROM sales.events"] = 50 * partitionMiB
	out, err := s.DryRun(context.Background(), DryRunInput{SQL: "SELECT * FROM sales.events"})
	if err != nil {
		t.Fatal(err)
	}
	// Sizes total 107 MiB: the query reads 50/107 of each partition.
	frac := 50.0 / 107
	want := map[string]int64{
		"WHERE customer_id >= 990 AND customer_id < 1000 (highest 1 range)":   int64(partitionMiB * frac),
		"WHERE customer_id >= 900 AND customer_id < 1000 (highest 10 ranges)": int64(10 * partitionMiB * frac),
		"WHERE customer_id >= 0 AND customer_id < 1000 (highest 100 ranges)":  int64(100 * partitionMiB * frac),
	}
	got := map[string]Advice{}
	for _, a := range out.Advice {
		got[a.Change] = a
	}
	for change, n := range want {
		if a, ok := got[change]; !ok || a.reads() != n || a.ReadsBytes == nil || a.Method != methodPartitions {
			t.Errorf("%s: got %+v, want reads %d by %s (advice %+v)", change, a, n, methodPartitions, out.Advice)
		}
	}
	b, _ := json.Marshal(out)
	if len(b) >= 2048 {
		t.Errorf("answer with range advice is %d bytes, want under 2 KB", len(b))
	}
}

// manyColumns is a result of n columns c0 … c(n-1), customer_id among them.
func manyColumns(n int) *bq.TableSchema {
	fs := []*bq.TableFieldSchema{{Name: "customer_id", Type: "INTEGER"}}
	for i := 1; i < n; i++ {
		fs = append(fs, &bq.TableFieldSchema{Name: "c" + strconv.Itoa(i), Type: "STRING"})
	}
	return &bq.TableSchema{Fields: fs}
}

func TestSelectStarAdviceMeasuredByOneDryRun(t *testing.T) {
	s, fake := newAdviceService(t, false, func(c *Config) {
		c.Catalog = fakeCatalog{layouts: map[string]*bqtype.TableLayout{"p.sales.events": {Type: "TABLE", NumBytes: 60 * partitionMiB}}}
	})
	fake.wide = manyColumns(12)
	const sql = "SELECT * FROM sales.events WHERE customer_id = 7"
	fake.bytes[sql] = 30 * partitionMiB
	fake.bytes["SELECT `customer_id` FROM sales.events WHERE customer_id = 7"] = 2 * partitionMiB
	out, err := s.DryRun(context.Background(), DryRunInput{SQL: sql})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Advice) != 1 || out.Advice[0].reads() != 2*partitionMiB || out.Advice[0].Method != methodDryRun ||
		!strings.Contains(out.Advice[0].Change, "all 12 columns") {
		t.Fatalf("advice = %+v, want what naming customer_id reads, by a dry run", out.Advice)
	}
	if len(fake.dryRuns) != 2 {
		t.Errorf("dry runs = %d (%q), want the query's and one rewrite", len(fake.dryRuns), fake.dryRuns)
	}
}

func TestSelectStarAdviceNeverGuesses(t *testing.T) {
	for name, c := range map[string]struct {
		sql     string
		columns int
	}{
		"narrow table":          {"SELECT * FROM sales.events", 5},
		"rewrite refused":       {"SELECT * FROM sales.events UNION ALL SELECT * FROM sales.events", 12},
		"star not first":        {"SELECT customer_id, * FROM sales.events", 12},
		"qualified star inside": {"SELECT * FROM (SELECT e.* FROM sales.events e)", 12},
	} {
		t.Run(name, func(t *testing.T) {
			s, fake := newAdviceService(t, false, func(c *Config) {
				c.Catalog = fakeCatalog{layouts: map[string]*bqtype.TableLayout{"p.sales.events": {Type: "TABLE"}}}
			})
			fake.wide = manyColumns(c.columns)
			fake.bytes[c.sql] = 30 * partitionMiB
			out, err := s.DryRun(context.Background(), DryRunInput{SQL: c.sql})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Advice) != 0 {
				t.Errorf("advice = %+v, want none", out.Advice)
			}
			if len(fake.dryRuns) > 1+maxStarDryRuns {
				t.Errorf("dry runs = %d, want at most %d", len(fake.dryRuns), 1+maxStarDryRuns)
			}
		})
	}
}

// After a job that a dry run preceded, the answer holds the estimate next
// to the bytes billed; with no dry run, no estimate.
func TestExecuteReportsBilledAgainstEstimate(t *testing.T) {
	const sql = "SELECT COUNT(*) FROM sales.events WHERE ts = CURRENT_DATE() LIMIT 1"
	s, _ := newAdviceService(t, false)
	out, err := s.Execute(context.Background(), ExecuteInput{SQL: sql})
	if err != nil || out.EstimateBytes != 0 {
		t.Fatalf("Execute without a dry run = %+v, %v; want no estimate", out, err)
	}
	// A budget needs the estimate: the dry run comes first.
	s, _ = newAdviceService(t, false, func(c *Config) {
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerDay: 1 << 30}), nil)
	})
	out, err = s.Execute(context.Background(), ExecuteInput{SQL: sql})
	if err != nil {
		t.Fatal(err)
	}
	if out.EstimateBytes != partitionMiB || out.BytesBilled != 1 {
		t.Errorf("estimate %d, billed %d; want the dry run's %d against the job's 1", out.EstimateBytes, out.BytesBilled, partitionMiB)
	}
}
