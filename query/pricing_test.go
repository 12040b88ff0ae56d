package query

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// priceBigQuery is a fake of the REST reference for pricing: every dry
// run is planned in location, and every job runs there, processing and
// billing bytes with slotMs slot-milliseconds (0: BigQuery gives none).
// With incomplete, jobs.query answers before the job is done, so the bytes
// billed and slot time come from jobs.get.
type priceBigQuery struct {
	*bqfake.Fake
	location   string
	bytes      int64
	slotMs     int64
	cacheHit   bool
	incomplete bool
}

// serve starts the fake f describes.
func (f *priceBigQuery) serve(t *testing.T) {
	t.Helper()
	f.Fake = bqfake.New(t)
	f.QueryResult(bqfake.Columns("n INTEGER"), bqfake.Row("1"))
	f.OnJob(func(job *bq.Job) {
		job.JobReference.Location = f.location
		if job.Configuration.DryRun {
			job.Statistics = &bq.JobStatistics{TotalBytesProcessed: f.bytes, Query: &bq.JobStatistics2{StatementType: "SELECT", TotalBytesProcessed: f.bytes}}
			return
		}
		job.Statistics = &bq.JobStatistics{TotalBytesProcessed: f.bytes, TotalSlotMs: f.slotMs, Query: &bq.JobStatistics2{
			StatementType: "SELECT", TotalBytesProcessed: f.bytes, TotalBytesBilled: f.bytes, TotalSlotMs: f.slotMs, CacheHit: f.cacheHit,
		}}
	})
	f.On(bqfake.JobsInsert).When(func(r *bqfake.Request) bool { return !r.Job.Configuration.DryRun }).ReplyFunc(func(*bqfake.Request) (any, error) {
		t.Errorf("price bigquery: a job was inserted that is not a dry run")
		return nil, nil
	})
	if f.incomplete {
		f.On(bqfake.JobsQuery).Rewrite(func(_ *bqfake.Request, answer any) any {
			return &bq.QueryResponse{JobReference: answer.(*bq.QueryResponse).JobReference}
		})
	}
}

// newPricedService serves fake with the pricing flags set: --price-per-tib
// 5, --price-per-tib-by-location europe-west2=7.82, --slot-hour-price 0.06,
// on demand unless editions; then each configure.
func newPricedService(t *testing.T, fake *priceBigQuery, editions bool, configure ...func(*Config)) *Service {
	t.Helper()
	fake.serve(t)
	return newTestService(t, fake, func(c *Config) {
		c.PricePerTiB = 5
		c.PricePerTiBByLocation = map[string]float64{"europe-west2": 7.82}
		c.SlotHourPrice = 0.06
		c.Billing = cost.OnDemand
		if editions {
			c.Billing = cost.Editions
		}
		for _, f := range configure {
			f(c)
		}
	})
}

const tib = int64(1) << 40

// dry_run_sql prices its estimate where BigQuery planned the query (the
// dry run's location), from the flag's location, the table or the flag, and
// says which.
func TestDryRunPricedWhereBigQueryPlannedIt(t *testing.T) {
	for _, c := range []struct {
		location string
		want     cost.Price
		usd      float64
	}{
		{"europe-west2", cost.Price{Billing: cost.OnDemand, Location: "europe-west2", PerTiBUSD: 7.82, Source: "--price-per-tib-by-location"}, 15.64},
		{"EU", cost.Price{Billing: cost.OnDemand, Location: "EU", PerTiBUSD: 6.25, Source: "table 2026-11"}, 12.5},
		{"US", cost.Price{Billing: cost.OnDemand, Location: "US", PerTiBUSD: 6.25, Source: "table 2026-11"}, 12.5},
		// Not in the table: the flag's price, and the answer says so.
		{"asia-south1", cost.Price{Billing: cost.OnDemand, Location: "asia-south1", PerTiBUSD: 5, Source: "--price-per-tib"}, 10},
		// BigQuery named no location (the emulator): the flag's price.
		{"", cost.Price{Billing: cost.OnDemand, PerTiBUSD: 5, Source: "--price-per-tib"}, 10},
	} {
		t.Run(c.location, func(t *testing.T) {
			s := newPricedService(t, &priceBigQuery{location: c.location, bytes: 2 * tib}, false)
			out, err := s.DryRun(context.Background(), DryRunInput{SQL: "SELECT * FROM sales.orders"})
			if err != nil {
				t.Fatal(err)
			}
			if out.Location != c.location || out.Price != c.want {
				t.Errorf("location %q, price %+v; want %q, %+v", out.Location, out.Price, c.location, c.want)
			}
			if out.EstimatedCostUSD != c.usd || out.PricePerTiBUSD != c.want.PerTiBUSD {
				t.Errorf("estimatedCostUSD %v at %v/TiB, want %v at %v", out.EstimatedCostUSD, out.PricePerTiBUSD, c.usd, c.want.PerTiBUSD)
			}
			if strings.Contains(out.Note, "slot") {
				t.Errorf("on-demand note %q speaks of slots", out.Note)
			}
		})
	}
}

// Under editions a dry run gives no dollar figure: the note says the cost
// is known only after the run, and the price is the slot-hour's.
func TestDryRunUnderEditions(t *testing.T) {
	s := newPricedService(t, &priceBigQuery{location: "US", bytes: 2 * tib}, true)
	out, err := s.DryRun(context.Background(), DryRunInput{SQL: "SELECT * FROM sales.orders"})
	if err != nil {
		t.Fatal(err)
	}
	want := cost.Price{Billing: cost.Editions, Location: "US", SlotHourUSD: 0.06, Source: "--slot-hour-price"}
	if out.Price != want || out.EstimatedCostUSD != 0 || out.PricePerTiBUSD != 0 || out.BytesProcessed != 2*tib {
		t.Errorf("got %+v, want price %+v, no dollar figure, the bytes", out, want)
	}
	if !strings.Contains(out.Note, "known only after the run") || !strings.Contains(out.Note, "$0.06/slot-hour") {
		t.Errorf("note %q does not say the cost comes after the run", out.Note)
	}
	b, _ := json.Marshal(out)
	if !strings.Contains(string(b), `"price":{"billing":"editions","location":"US","slotHourUSD":0.06,"source":"--slot-hour-price"}`) {
		t.Errorf("JSON %s", b)
	}
}

// execute_sql prices a finished job: bytes billed on demand at the price of
// the job's location, slot time under editions; get_job says the same.
func TestExecuteReportsWhatTheJobCost(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name       string
		editions   bool
		location   string
		slotMs     int64
		cacheHit   bool
		incomplete bool
		usd        *float64
		price      *cost.Price
	}{
		{name: "on demand, table", location: "US", slotMs: 7_200_000, usd: ptr(6.25),
			price: &cost.Price{Billing: cost.OnDemand, Location: "US", PerTiBUSD: 6.25, Source: "table 2026-11"}},
		{name: "on demand, flag's location", location: "europe-west2", usd: ptr(7.82),
			price: &cost.Price{Billing: cost.OnDemand, Location: "europe-west2", PerTiBUSD: 7.82, Source: "--price-per-tib-by-location"}},
		{name: "on demand, --price-per-tib", location: "me-central2", usd: ptr(5.0),
			price: &cost.Price{Billing: cost.OnDemand, Location: "me-central2", PerTiBUSD: 5, Source: "--price-per-tib"}},
		{name: "editions", editions: true, location: "US", slotMs: 7_200_000, usd: ptr(0.12),
			price: &cost.Price{Billing: cost.Editions, Location: "US", SlotHourUSD: 0.06, Source: "--slot-hour-price"}},
		{name: "editions, from jobs.get", editions: true, location: "EU", slotMs: 90_000_000, incomplete: true, usd: ptr(1.5),
			price: &cost.Price{Billing: cost.Editions, Location: "EU", SlotHourUSD: 0.06, Source: "--slot-hour-price"}},
		{name: "on demand, from jobs.get", location: "EU", incomplete: true, usd: ptr(6.25),
			price: &cost.Price{Billing: cost.OnDemand, Location: "EU", PerTiBUSD: 6.25, Source: "table 2026-11"}},
		{name: "editions, cache hit", editions: true, location: "US", cacheHit: true, usd: ptr(0.0),
			price: &cost.Price{Billing: cost.Editions, Location: "US", SlotHourUSD: 0.06, Source: "--slot-hour-price"}},
		// BigQuery gave no slot time: the cost is unknown, not $0.
		{name: "editions, no totalSlotMs", editions: true, location: "US"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := &priceBigQuery{location: c.location, bytes: tib, slotMs: c.slotMs, cacheHit: c.cacheHit, incomplete: c.incomplete}
			s := newPricedService(t, fake, c.editions)
			out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.orders"})
			if err != nil {
				t.Fatal(err)
			}
			if !out.JobComplete || out.BytesBilled != tib || out.SlotMs != c.slotMs {
				t.Fatalf("got %+v, want a finished job billing 1 TiB in %d slot-ms", out, c.slotMs)
			}
			if !sameCost(out.CostUSD, c.usd) || !samePrice(out.Price, c.price) {
				t.Errorf("costUSD %v at %+v, want %v at %+v", show(out.CostUSD), out.Price, show(c.usd), c.price)
			}
			gets := fake.Count(bqfake.JobsGet)
			if c.incomplete && gets == 0 {
				t.Error("the bytes billed did not come from jobs.get")
			}
			j, err := s.GetJob(ctx, JobInput{JobID: out.JobID, Location: out.Location})
			if err != nil {
				t.Fatal(err)
			}
			if !sameCost(j.CostUSD, c.usd) || !samePrice(j.Price, c.price) || j.SlotMs != c.slotMs {
				t.Errorf("get_job: costUSD %v at %+v (%d slot-ms), want %v at %+v", show(j.CostUSD), j.Price, j.SlotMs, show(c.usd), c.price)
			}
		})
	}
}

// get_query_results on a job already settled has no bytes billed, so no
// cost either: never a cost from bytes it does not know.
func TestGetResultsWithoutBytesBilledHasNoCost(t *testing.T) {
	ctx := context.Background()
	s := newPricedService(t, &priceBigQuery{location: "US", bytes: tib}, false)
	out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.orders"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := s.GetResults(ctx, GetResultsInput{JobID: out.JobID, Location: out.Location})
	if err != nil {
		t.Fatal(err)
	}
	if page.BytesBilled != 0 || page.CostUSD != nil || page.Price != nil {
		t.Errorf("get_query_results: bytesBilled %d, costUSD %v, price %+v; want none", page.BytesBilled, show(page.CostUSD), page.Price)
	}
}

// usage reports what the caller's jobs cost, each at its own location's
// price (here --location's), with --location's price; under editions each
// job at its slot time, and the note says which jobs had none.
func TestUsageReportsDollars(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		location string
		want     cost.Price
		usd      float64
	}{
		{"EU", cost.Price{Billing: cost.OnDemand, Location: "EU", PerTiBUSD: 6.25, Source: "table 2026-11"}, 12.5},
		{"europe-west2", cost.Price{Billing: cost.OnDemand, Location: "europe-west2", PerTiBUSD: 7.82, Source: "--price-per-tib-by-location"}, 15.64},
		{"", cost.Price{Billing: cost.OnDemand, PerTiBUSD: 5, Source: "--price-per-tib"}, 10},
	} {
		s := newPricedService(t, &priceBigQuery{location: c.location, bytes: tib}, false, func(cfg *Config) {
			cfg.Location = c.location
			cfg.State = governance.NewMemory(governance.NewBudget(governance.Limits{}).WithUSDPerDay(cfg.LedgerPricing(c.location)), nil)
		})
		for range 2 {
			if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.orders"}); err != nil {
				t.Fatal(err)
			}
		}
		u, err := s.Usage(ctx, UsageInput{})
		if err != nil {
			t.Fatal(err)
		}
		if u.Price != c.want || u.SessionCostUSD != c.usd || u.TodayCostUSD != c.usd || u.PricePerTiBUSD != c.want.PerTiBUSD || u.Note != "" {
			t.Errorf("--location %q: usage %+v, want $%v at %+v", c.location, u, c.usd, c.want)
		}
	}
	for _, c := range []struct {
		slotMs   int64
		usd      float64
		unpriced int64
		note     string
	}{
		{3_600_000, 0.06, 0, "priced by its slot time at $0.06/slot-hour"},
		{0, 0, 1, "1 of this session's jobs (1 today) are not in the costs: their cost is unknown (editions billing: BigQuery gave no slot time"},
	} {
		s := newPricedService(t, &priceBigQuery{location: "US", bytes: tib, slotMs: c.slotMs}, true, func(cfg *Config) {
			cfg.State = governance.NewMemory(governance.NewBudget(governance.Limits{}).WithUSDPerDay(cfg.LedgerPricing("US")), nil)
		})
		if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.orders"}); err != nil {
			t.Fatal(err)
		}
		u, err := s.Usage(ctx, UsageInput{})
		if err != nil {
			t.Fatal(err)
		}
		if u.Price.Billing != cost.Editions || u.SessionCostUSD != c.usd || u.TodayCostUSD != c.usd || u.Session.BytesBilled != tib || u.Session.Unpriced != c.unpriced || !strings.Contains(u.Note, c.note) {
			t.Errorf("editions usage with %d slot-ms: %+v, want $%v and a note %q", c.slotMs, u, c.usd, c.note)
		}
		if len(u.LastJobs) != 1 || (u.LastJobs[0].CostUSD == nil) != (c.unpriced == 1) {
			t.Errorf("lastJobs %+v: want a cost exactly when the job's slot time is known", u.LastJobs)
		}
	}
}

// The confirmation names the estimate's cost and the price it is at, or
// under editions that the cost comes after the run.
func TestConfirmationNamesThePrice(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		editions bool
		want     []string
	}{
		{false, []string{"2.0 TiB", "about $15.64 at $7.82/TiB on demand in europe-west2 [--price-per-tib-by-location]"}},
		{true, []string{"2.0 TiB", "$0.06/slot-hour under editions in europe-west2 [--slot-hour-price], is known only after it runs"}},
	} {
		s := newPricedService(t, &priceBigQuery{location: "europe-west2", bytes: 2 * tib}, c.editions, func(cfg *Config) { cfg.ConfirmAboveBytes = tib })
		_, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.orders"})
		var need *ConfirmationRequired
		if !errors.As(err, &need) {
			t.Fatalf("Execute = %v, want ConfirmationRequired", err)
		}
		for _, w := range c.want {
			if !strings.Contains(need.Message(), w) || !strings.Contains(need.AsError().Message, w) {
				t.Errorf("editions=%v: message %q / error %q lacks %q", c.editions, need.Message(), need.AsError().Message, w)
			}
		}
	}
}

func ptr(f float64) *float64 { return &f }

func sameCost(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func samePrice(a, b *cost.Price) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func show(f *float64) any {
	if f == nil {
		return "none"
	}
	return *f
}
