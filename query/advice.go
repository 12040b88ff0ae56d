package query

// Cost advice (issue 29): for dry_run_sql, concrete changes that would
// make a query cheaper and what each would read, with figures from
// BigQuery, never guesses. This first slice covers partitioned and
// clustered tables.
//
// Bounds: at most maxAdviceTables tables per call (the first the dry run
// lists); their layout comes from the Catalog's cached tables.get; the
// partitions' sizes from one INFORMATION_SCHEMA.PARTITIONS query per table
// per partitionSizesTTL, shared by every caller. That query bills
// BigQuery's 10 MB minimum: it is held and charged to the caller's budget
// like a job of theirs, and the advice says so.
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

	"github.com/google/uuid"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
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
)

// adviceWindows are the recent spans advised on, in days.
var adviceWindows = []int{1, 7, 30}

// Advice is one change that would make a query cheaper.
type Advice struct {
	Change string `json:"change"`
	// ReadsBytes is what the query would read with Change, when measured.
	ReadsBytes int64 `json:"readsBytes,omitempty"`
	// Method says where the figures come from.
	Method string `json:"method,omitempty"`
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
		out = append(out, Advice{Change: fmt.Sprintf("%s requires a filter on %s: BigQuery refuses the query without one", t, col)})
	}
	head := Advice{Change: fmt.Sprintf("%s is partitioned by %s on %s; the query does not filter on it, so it reads every partition", t, p.Type, col)}
	if p.Type == "RANGE" {
		head.Change += fmt.Sprintf("; filter %s to part of [%d, %d) (ranges of %d)", p.Column, p.RangeStart, p.RangeEnd, p.RangeInterval)
		return append(out, head)
	}
	sizes, fresh, why := s.partitionSizes(ctx, r, t)
	var figures []Advice
	if sizes != nil && sizes.total > 0 {
		frac := min(float64(estimate)/float64(sizes.total), 1)
		now := time.Now().UTC()
		for _, days := range adviceWindows {
			figures = append(figures, Advice{
				Change:     fmt.Sprintf("WHERE %s (last %d day%s)", recentFilter(p, days), days, plural(days)),
				ReadsBytes: int64(float64(sizes.recent(p.Type, now, days)) * frac),
			})
		}
		lookup := "it bills BigQuery's 10 MB minimum, counted in your spend"
		if !fresh {
			lookup = "cached, no charge this call"
		}
		head.Method = fmt.Sprintf("readsBytes: INFORMATION_SCHEMA.PARTITIONS sizes x the %.0f%% of the table this query reads (%s)", frac*100, lookup)
	} else if why != "" {
		head.Method = "no figures: " + why
	}
	out = append(out, head)
	sort.SliceStable(figures, func(i, j int) bool { return figures[i].ReadsBytes < figures[j].ReadsBytes })
	return append(out, figures...)
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
	ps, billed, processed, err := s.queryPartitions(ctx, r, t)
	if err != nil {
		_ = s.cfg.State.Release(context.WithoutCancel(ctx), hold)
		s.log.DebugContext(ctx, "partition sizes not read", "table", t.String(), "error", bqerr.Redact(err.Error()))
		return nil, false, "INFORMATION_SCHEMA.PARTITIONS could not be read"
	}
	if _, err := s.cfg.State.Settle(context.WithoutCancel(ctx), hold, governance.Usage{Jobs: 1, BytesProcessed: processed, BytesBilled: billed}); err != nil {
		s.log.WarnContext(ctx, "partition lookup cost not settled", "error", bqerr.Redact(err.Error()))
	}
	s.partitionCache().Add(t, ps)
	return ps, true, ""
}

// queryPartitions runs the INFORMATION_SCHEMA.PARTITIONS query for t.
func (s *Service) queryPartitions(ctx context.Context, r *request, t tableRef) (*partitionSizes, int64, int64, error) {
	loc := r.location
	if l, err := s.cfg.Catalog.DatasetLocation(ctx, t.project, t.dataset); err == nil && l != "" {
		loc = l
	}
	useLegacy := false
	req := &bq.QueryRequest{
		Query:           "SELECT partition_id, total_logical_bytes FROM `" + t.project + "." + t.dataset + ".INFORMATION_SCHEMA.PARTITIONS` WHERE table_name = @t ORDER BY partition_id DESC",
		UseLegacySql:    &useLegacy,
		ParameterMode:   "NAMED",
		QueryParameters: []*bq.QueryParameter{{Name: "t", ParameterType: &bq.QueryParameterType{Type: "STRING"}, ParameterValue: &bq.QueryParameterValue{Value: t.table}}},
		MaxResults:      maxPartitionRows,
		TimeoutMs:       10000,
		Location:        loc,
		Labels:          governance.JobLabels(ctx),
		// The lookup bills 10 MB; a little room, never the server cap.
		MaximumBytesBilled: min(s.cfg.MaxBytesBilled, 10*infoSchemaMinBytes),
		RequestId:          uuid.NewString(),
		JobCreationMode:    job.JobCreationRequired,
	}
	var resp *bq.QueryResponse
	err := s.exec.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		var err error
		resp, err = s.rest.Jobs.Query(s.cfg.Project, req).Context(ctx).Do()
		return err
	})
	if err != nil {
		return nil, 0, 0, err
	}
	if !resp.JobComplete {
		return nil, 0, 0, fmt.Errorf("the partition lookup did not finish in time")
	}
	ps := &partitionSizes{}
	for _, row := range resp.Rows {
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
	if resp.PageToken != "" {
		// More partitions than read: the total is unknown.
		ps.total = 0
	}
	return ps, resp.TotalBytesBilled, resp.TotalBytesProcessed, nil
}

// checkRequiredFilters refuses, before any job, a query that names a
// table requiring a partition filter without naming its partition column:
// BigQuery would refuse it. It reads the tables the text names (at most
// maxAdviceTables), from the Catalog's cached metadata.
func (s *Service) checkRequiredFilters(ctx context.Context, r *request) error {
	if s.cfg.Catalog == nil {
		return nil
	}
	words := identifiers(r.text)
	seen := map[tableRef]bool{}
	for _, t := range s.namedTables(r) {
		if seen[t] || t.table == "" {
			continue
		}
		if seen[t] = true; len(seen) > maxAdviceTables {
			break
		}
		if s.cfg.Datasets.Enabled() && !s.cfg.Datasets.Allows(t.project, t.dataset) {
			continue
		}
		l, err := s.cfg.Catalog.TableLayout(ctx, t.project, t.dataset, t.table)
		if err != nil || l == nil || l.Partitioning == nil || !l.Partitioning.RequireFilter || filtersOn(words, l.Partitioning) {
			continue
		}
		p := l.Partitioning
		col := p.Column
		if p.ColumnType != "" {
			col += " (" + p.ColumnType + ")"
		}
		hint := "Filter on " + p.Column + ", e.g. WHERE " + recentFilter(p, 7) + " for the last 7 days; dry_run_sql shows what each range reads."
		if p.Type == "RANGE" {
			hint = fmt.Sprintf("Filter on %s to part of [%d, %d); dry_run_sql shows what the query reads.", p.Column, p.RangeStart, p.RangeEnd)
		}
		return bqerr.Invalid(fmt.Sprintf("table %s requires a filter on its partition column %s, and the query has none: BigQuery would refuse it; nothing ran", t, col), hint).WithQuery(r.sql)
	}
	return nil
}
