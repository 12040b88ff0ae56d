package query

// Cost advice (issue 29): concrete changes that would make a query
// cheaper and what each would read, with figures from BigQuery, never
// guesses. dry_run_sql answers it; execute_sql (and export_results) adds
// it, as compact lines (bqerr Details.Advice), to a query refused or asked
// to confirm for what it would read: the bytes cap, a budget, the
// confirmation threshold, the export cap.
//
// Bounds, per call: at most maxAdviceTables tables (the first the dry run
// lists); their layout comes from the Catalog's cached tables.get; the
// partitions' sizes from one INFORMATION_SCHEMA.PARTITIONS query per table
// per partitionSizesTTL, shared by every caller. That query bills
// BigQuery's 10 MB minimum: it is held and charged to the caller's budget
// like a job of theirs, and the advice says so. SELECT * on a wide table
// costs at most maxStarDryRuns more dry runs (free). A refusal's advice
// is at most maxRefusalAdviceBytes of text.
//
// Each figure says how it was obtained (Method): "partition sizes" (the
// PARTITIONS sizes of the partitions a filter keeps, scaled by the share
// of the table the query reads: a day window or a run of integer ranges),
// or "dry run" (a dry run of the rewritten query).
//
// "No pruning" is decided from the text: a partitioned table whose
// partition column (for ingestion time, _PARTITIONTIME or _PARTITIONDATE)
// is not among the query's identifiers cannot be pruned. A query that
// names the column may still not prune (a filter BigQuery cannot use):
// that is not advised on.

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
)

const (
	// maxAdviceTables bounds the tables advised on per call.
	maxAdviceTables = 3
	// partitionSizesTTL is how long a table's partition sizes are reused.
	partitionSizesTTL = 5 * time.Minute
	// infoSchemaMinBytes is what BigQuery bills at least for a query of
	// INFORMATION_SCHEMA.
	infoSchemaMinBytes = 10 << 20
	// maxPartitionRows bounds the partitions read (the most recent first).
	maxPartitionRows = 1000
	// maxStarDryRuns bounds the dry runs SELECT * advice makes.
	maxStarDryRuns = 1
	// wideTableColumns is the width from which SELECT * is advised on.
	wideTableColumns = 10
	// maxRefusalAdviceBytes bounds the advice lines of a refusal, so that
	// the whole answer stays under 2 KB (it counts against the agent's
	// context).
	maxRefusalAdviceBytes = 900

	// The figures' methods.
	methodPartitions = "partition sizes"
	methodDryRun     = "dry run"
)

// adviceWindows are the recent spans advised on, in days; rangeWindows
// the runs of an integer-range table's highest ranges.
var (
	adviceWindows = []int{1, 7, 30}
	rangeWindows  = []int{1, 10, 100}
)

// Advice is one change that would make a query cheaper.
type Advice struct {
	Change string `json:"change"`
	// ReadsBytes is what the query would read with Change, when measured
	// (0 is a figure too: a filter that keeps no partition).
	ReadsBytes *int64 `json:"readsBytes,omitempty"`
	// Method says where the figures come from.
	Method string `json:"method,omitempty"`
	// refused marks a fact that makes BigQuery refuse the query: it comes
	// first.
	refused bool
}

// rank orders advice: what BigQuery would refuse first, then the changes
// with figures, cheapest first, then what has none.
func (a Advice) rank() int {
	switch {
	case a.refused:
		return 0
	case a.ReadsBytes != nil:
		return 1
	}
	return 2
}

// reads is ReadsBytes, 0 when not measured.
func (a Advice) reads() int64 {
	if a.ReadsBytes == nil {
		return 0
	}
	return *a.ReadsBytes
}

// measured is a figure for ReadsBytes.
func measured(n int64) *int64 { return &n }

// line is a's compact form for a refusal: "change: reads 3.5 MiB [method]".
func (a Advice) line() string {
	l := a.Change
	if a.ReadsBytes != nil {
		l += ": reads " + governance.FormatBytes(*a.ReadsBytes)
	}
	if a.Method != "" {
		l += " [" + a.Method + "]"
	}
	return l
}

// adviceLines is advice as lines of at most max bytes in all, in order;
// what does not fit is left out (dry_run_sql lists it all).
func adviceLines(adv []Advice, max int) []string {
	var out []string
	n := 0
	for _, a := range adv {
		l := a.line()
		if n+len(l) > max {
			break
		}
		out, n = append(out, l), n+len(l)
	}
	return out
}

// adviseRefusal adds cost advice to err, an answer that refuses r (or
// asks to confirm it) for what it would read, from r's dry run (one is
// made, free, when r had none). err is returned unchanged when there is
// no advice or it is not such an answer.
func (s *Service) adviseRefusal(ctx context.Context, r *request, err error) error {
	need, asking := err.(*ConfirmationRequired)
	e, refused := bqerr.As(err)
	if !asking && (!refused || e.Code != bqerr.ResourceExhausted && e.Code != bqerr.PermissionDenied) {
		return err
	}
	plan := r.plan
	if plan == nil {
		var derr error
		if plan, derr = s.dryRun(ctx, r); derr != nil {
			return err
		}
		r.plan = plan
	}
	lines := adviceLines(s.advise(ctx, r, plan), maxRefusalAdviceBytes)
	switch {
	case len(lines) == 0:
		return err
	case asking:
		c := *need
		c.Advice = lines
		return &c
	}
	return e.WithAdvice(lines)
}

// partitionSizes is one table's partitions, the most recent first.
type partitionSizes struct {
	ids   []string
	bytes []int64
	total int64
}

// partitionCache returns s's cache of partition sizes, made on first use.
func (s *Service) partitionCache() *ttlCache[tableRef, *partitionSizes] {
	s.partitionsOnce.Do(func() { s.partitions = newTTLCache[tableRef, *partitionSizes](1024, partitionSizesTTL) })
	return s.partitions
}

// adviseTables returns the first tables of a plan to advise on.
func adviseTables(plan *dryRunResult) []tableRef {
	var out []tableRef
	seen := map[tableRef]bool{}
	for _, t := range plan.ReferencedTables {
		ref := tableRef{t.ProjectID, t.DatasetID, t.TableID}
		if seen[ref] {
			continue
		}
		seen[ref] = true
		if out = append(out, ref); len(out) == maxAdviceTables {
			break
		}
	}
	return out
}

// filtersOn reports whether the text names a partition column (the
// "no pruning" rule above).
func filtersOn(words map[string]bool, p *bqtype.PartitionLayout) bool {
	if p.Column == "_PARTITIONTIME" {
		return words["_partitiontime"] || words["_partitiondate"]
	}
	return words[strings.ToLower(p.Column)]
}

// advise returns the advice for a dry run: nothing when the server has no
// Catalog or nothing can be said.
func (s *Service) advise(ctx context.Context, r *request, plan *dryRunResult) []Advice {
	if s.cfg.Catalog == nil || plan.TotalBytesProcessed <= 0 {
		return nil
	}
	words := identifiers(r.text)
	var out []Advice
	for _, t := range adviseTables(plan) {
		if s.cfg.Datasets.Enabled() && !s.cfg.Datasets.Allows(t.project, t.dataset) {
			continue // under an authorized view: not the caller's to see
		}
		l, err := s.cfg.Catalog.TableLayout(ctx, t.project, t.dataset, t.table)
		if err != nil || l == nil {
			continue
		}
		if p := l.Partitioning; p != nil && !filtersOn(words, p) {
			out = append(out, s.partitionAdvice(ctx, r, t, p, plan.TotalBytesProcessed)...)
		}
		if len(l.Clustering) > 0 {
			out = append(out, Advice{Change: fmt.Sprintf("%s is clustered by %s: filters on them (leading first) read less", t, strings.Join(l.Clustering, ", "))})
		}
	}
	if a, ok := s.starAdvice(ctx, r, plan); ok {
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := out[i].rank(), out[j].rank(); ri != rj {
			return ri < rj
		}
		return out[i].reads() < out[j].reads()
	})
	return out
}

// partitionAdvice is the advice for a partitioned table the query reads
// without a filter on its partition column.
func (s *Service) partitionAdvice(ctx context.Context, r *request, t tableRef, p *bqtype.PartitionLayout, estimate int64) []Advice {
	var out []Advice
	col := p.Column
	if p.ColumnType != "" {
		col += " (" + p.ColumnType + ")"
	}
	if p.RequireFilter {
		out = append(out, Advice{Change: fmt.Sprintf("%s requires a filter on %s: BigQuery refuses the query without one", t, col), refused: true})
	}
	head := Advice{Change: fmt.Sprintf("%s is partitioned by %s on %s; the query does not filter on it, so it reads every partition", t, p.Type, col)}
	sizes, fresh, why := s.partitionSizes(ctx, r, t)
	var figures []Advice
	if sizes != nil && sizes.total > 0 {
		frac := min(float64(estimate)/float64(sizes.total), 1)
		if p.Type == "RANGE" {
			figures = rangeFigures(p, sizes, frac)
		} else {
			now := s.clock().UTC()
			for _, days := range adviceWindows {
				figures = append(figures, Advice{
					Change:     fmt.Sprintf("WHERE %s (last %d day%s)", recentFilter(p, days), days, plural(days)),
					ReadsBytes: measured(int64(float64(sizes.recent(p.Type, now, days)) * frac)),
					Method:     methodPartitions,
				})
			}
		}
		lookup := "it bills BigQuery's 10 MB minimum, counted in your spend"
		if !fresh {
			lookup = "cached, no charge this call"
		}
		head.Method = fmt.Sprintf("%s: INFORMATION_SCHEMA.PARTITIONS sizes x the %.0f%% of the table this query reads (%s)", methodPartitions, frac*100, lookup)
	} else if why != "" {
		head.Method = "no figures: " + why
	}
	if p.Type == "RANGE" && len(figures) == 0 {
		head.Change += fmt.Sprintf("; filter %s to part of [%d, %d) (ranges of %d)", p.Column, p.RangeStart, p.RangeEnd, p.RangeInterval)
	}
	return append(append(out, head), figures...)
}

// rangeFigures are what an integer-range table's query reads filtered to
// its highest 1, 10 and 100 ranges that hold data (a larger run only when
// it keeps fewer than all of them), from the partitions' sizes scaled by
// frac.
func rangeFigures(p *bqtype.PartitionLayout, sizes *partitionSizes, frac float64) []Advice {
	if p.RangeInterval <= 0 {
		return nil
	}
	type part struct{ start, bytes int64 }
	var parts []part
	for i, id := range sizes.ids {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil {
			parts = append(parts, part{n, sizes.bytes[i]})
		}
	}
	if len(parts) == 0 {
		return nil
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].start > parts[j].start })
	hi := parts[0].start + p.RangeInterval
	var out []Advice
	for _, k := range rangeWindows {
		lo := max(hi-int64(k)*p.RangeInterval, p.RangeStart)
		var sum int64
		kept := 0
		for _, pt := range parts {
			if pt.start >= lo {
				sum, kept = sum+pt.bytes, kept+1
			}
		}
		out = append(out, Advice{
			Change:     fmt.Sprintf("WHERE %s >= %d AND %s < %d (highest %d range%s)", p.Column, lo, p.Column, hi, k, plural(k)),
			ReadsBytes: measured(int64(float64(sum) * frac)),
			Method:     methodPartitions,
		})
		if kept == len(parts) || lo == p.RangeStart {
			break
		}
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// recentFilter is a condition keeping the partitions of the last days.
func recentFilter(p *bqtype.PartitionLayout, days int) string {
	since := fmt.Sprintf("DATE_SUB(CURRENT_DATE(), INTERVAL %d DAY)", days-1)
	switch p.ColumnType {
	case "TIMESTAMP":
		since = "TIMESTAMP(" + since + ")"
	case "DATETIME":
		since = "DATETIME(" + since + ")"
	}
	return p.Column + " >= " + since
}

// recent sums the partitions that overlap the last days (UTC, today
// included); __NULL__ and __UNPARTITIONED__ are left out.
func (ps *partitionSizes) recent(typ string, now time.Time, days int) int64 {
	y, m, d := now.Date()
	cutoff := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(days - 1))
	var sum int64
	for i, id := range ps.ids {
		start, end, ok := partitionSpan(typ, id)
		if ok && end.After(cutoff) && start.Before(now.Add(24*time.Hour)) {
			sum += ps.bytes[i]
		}
	}
	return sum
}

// partitionSpan reads a time partition's ID (2006010215, 20060102,
// 200601, 2006) as the span it covers.
func partitionSpan(typ, id string) (start, end time.Time, ok bool) {
	layouts := map[string]string{"HOUR": "2006010215", "DAY": "20060102", "MONTH": "200601", "YEAR": "2006"}
	layout, known := layouts[typ]
	if !known {
		return start, end, false
	}
	start, err := time.Parse(layout, id)
	if err != nil {
		return start, end, false
	}
	switch typ {
	case "HOUR":
		end = start.Add(time.Hour)
	case "DAY":
		end = start.AddDate(0, 0, 1)
	case "MONTH":
		end = start.AddDate(0, 1, 0)
	default:
		end = start.AddDate(1, 0, 0)
	}
	return start, end, true
}

// partitionSizes returns a table's partition sizes, from the cache or one
// query of its dataset's INFORMATION_SCHEMA.PARTITIONS charged to the
// caller's budget (fresh). why says, when there are none, why.
func (s *Service) partitionSizes(ctx context.Context, r *request, t tableRef) (sizes *partitionSizes, fresh bool, why string) {
	if ps, ok := s.partitionCache().Get(t); ok {
		return ps, false, ""
	}
	hold, err := s.cfg.State.Reserve(ctx, auth.CallerFrom(ctx).Principal, infoSchemaMinBytes)
	if err != nil {
		return nil, false, "the 10 MB INFORMATION_SCHEMA lookup would pass your budget"
	}
	ps, err := s.queryPartitions(ctx, r, t, job.Charge{Reservation: hold, Estimate: infoSchemaMinBytes})
	if err != nil {
		s.log.DebugContext(ctx, "partition sizes not read", "table", t.String(), "error", bqerr.Redact(err.Error()))
		return nil, false, "INFORMATION_SCHEMA.PARTITIONS could not be read"
	}
	s.partitionCache().Add(t, ps)
	return ps, true, ""
}

// queryPartitions runs the INFORMATION_SCHEMA.PARTITIONS query for t as a
// lookup job (job.Runner.Lookup), which settles or gives back c, the hold
// made for it.
func (s *Service) queryPartitions(ctx context.Context, r *request, t tableRef, c job.Charge) (*partitionSizes, error) {
	loc := r.location
	if l, err := s.cfg.Catalog.DatasetLocation(ctx, t.project, t.dataset); err == nil && l != "" {
		loc = l
	}
	q := job.QueryConfig(job.QuerySpec{
		// Newest first: time partition IDs are numbers too (20240131), and
		// an integer range's sort as numbers, not text.
		SQL:    "SELECT partition_id, total_logical_bytes FROM `" + t.project + "." + t.dataset + ".INFORMATION_SCHEMA.PARTITIONS` WHERE table_name = @t ORDER BY SAFE_CAST(partition_id AS INT64) DESC NULLS LAST",
		Params: []*bq.QueryParameter{{Name: "t", ParameterType: &bq.QueryParameterType{Type: "STRING"}, ParameterValue: &bq.QueryParameterValue{Value: t.table}}},
		// The lookup bills 10 MB; a little room, never the server cap.
		MaxBytesBilled: min(s.cfg.MaxBytesBilled, 10*infoSchemaMinBytes),
	})
	p, err := s.jobs.Lookup(ctx, q, loc, maxPartitionRows, c)
	if err != nil {
		return nil, err
	}
	ps := &partitionSizes{}
	for _, row := range p.Rows {
		if len(row.F) < 2 {
			continue
		}
		id, _ := row.F[0].V.(string)
		v, _ := row.F[1].V.(string)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		ps.ids, ps.bytes, ps.total = append(ps.ids, id), append(ps.bytes, n), ps.total+n
	}
	if p.Token != "" {
		// More partitions than read: the total is unknown.
		ps.total = 0
	}
	return ps, nil
}

// clock is the Service's clock: time.Now unless a test fixed it
// (Config.now).
func (s *Service) clock() time.Time {
	if s.cfg.now != nil {
		return s.cfg.now()
	}
	return time.Now()
}
