package server

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/semantic"
)

// QueryMetricsInput is query_metrics' input: a metric query, and how to
// run it.
type QueryMetricsInput struct {
	semantic.QueryInput
	DryRun  bool `json:"dry_run,omitempty" jsonschema:"SQL and cost only."`
	MaxRows int  `json:"maxRows,omitempty"`
}

// QueryMetricsOutput is query_metrics' answer: execute_sql's result (its
// rows, columns named as MetricFlow names them), or the dry run's, with
// the SQL that ran, where each metric came from and which manifest said
// so.
type QueryMetricsOutput struct {
	*query.ExecuteOutput
	DryRun   *query.DryRunOutput    `json:"dryRun,omitempty"`
	SQL      string                 `json:"sql"`
	Metrics  []semantic.Provenance  `json:"metrics"`
	Manifest semantic.ManifestStamp `json:"manifest"`
}

// DimensionValuesInput is get_dimension_values' input.
type DimensionValuesInput struct {
	Dimension string   `json:"dimension"`
	Metrics   []string `json:"metrics,omitempty"`
}

// DimensionValuesOutput is get_dimension_values' answer.
type DimensionValuesOutput struct {
	Dimension string          `json:"dimension"`
	Values    json.RawMessage `json:"values"`
	// Truncated is set when there were more than semantic.MaxValues.
	Truncated bool                   `json:"truncated,omitempty"`
	Cached    bool                   `json:"cached,omitempty"`
	SQL       string                 `json:"sql"`
	Manifest  semantic.ManifestStamp `json:"manifest"`
}

// semanticTools are the semantic toolset: listed only when a manifest is
// configured (New drops them otherwise).
func semanticTools(svc Services) []listedTool {
	values := &valueCache{entries: map[string]*DimensionValuesOutput{}}
	return []listedTool{
		{ToolsetSemantic, newTool(&mcp.Tool{
			Name:        "list_metrics",
			Description: `Metrics of the dbt semantic layer (certified first), saved queries.`,
			Annotations: readOnly("List metrics"),
		}, func(_ context.Context, in semantic.ListInput) (*semantic.ListOutput, error) {
			return svc.Semantic.List(in)
		})},
		{ToolsetSemantic, newTool(&mcp.Tool{
			Name:        "describe_metrics",
			Description: `Metrics' shared group-bys, grains, models, tables, joins.`,
			Annotations: readOnly("Describe metrics"),
		}, func(_ context.Context, in semantic.DescribeInput) (*semantic.Description, error) {
			return svc.Semantic.Describe(in)
		})},
		{ToolsetSemantic, newTool(&mcp.Tool{
			Name:        "query_metrics",
			Description: `Run metrics by name (MetricFlow semantics), checked and capped as execute_sql; use it, not your own SQL, for metrics.`,
			Annotations: readOnly("Query metrics"),
		}, func(ctx context.Context, in QueryMetricsInput) (*QueryMetricsOutput, error) {
			return queryMetrics(ctx, svc, in)
		})},
		{ToolsetSemantic, newTool(&mcp.Tool{
			Name:        "get_dimension_values",
			Description: `A dimension's values, for filters.`,
			Annotations: readOnly("Get dimension values"),
		}, func(ctx context.Context, in DimensionValuesInput) (*DimensionValuesOutput, error) {
			return values.get(ctx, svc, in)
		})},
	}
}

// queryMetrics compiles the query and runs its SQL through execute_sql's
// (or dry_run_sql's) own path, with the metric names among the job's
// labels.
func queryMetrics(ctx context.Context, svc Services, in QueryMetricsInput) (*QueryMetricsOutput, error) {
	c, err := svc.Semantic.Compile(in.QueryInput)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(c.Metrics))
	for i, p := range c.Metrics {
		names[i] = p.Name
	}
	ctx = withMetricLabel(ctx, names)
	out := &QueryMetricsOutput{SQL: c.SQL, Metrics: c.Metrics, Manifest: svc.Semantic.Stamp()}
	if in.DryRun {
		if out.DryRun, err = svc.Query.DryRun(ctx, query.DryRunInput{SQL: c.SQL}); err != nil {
			return nil, err
		}
		return out, nil
	}
	if out.ExecuteOutput, err = svc.Query.Execute(ctx, query.ExecuteInput{SQL: c.SQL, MaxRows: in.MaxRows}); err != nil {
		return nil, err
	}
	return out, nil
}

// metricLabel is the job label that names the metrics a job computed.
const metricLabel = "mcp_metrics"

func withMetricLabel(ctx context.Context, names []string) context.Context {
	labels := maps.Clone(governance.JobLabels(ctx))
	if labels == nil {
		labels = map[string]string{}
	}
	labels[metricLabel] = governance.SanitizeLabelValue(strings.Join(names, "-"))
	return governance.WithJobLabels(ctx, labels)
}

// valueCache keeps get_dimension_values' answers per caller and manifest
// query, so filters can be checked again without another job; at most
// maxCachedValues answers, the oldest dropped first.
type valueCache struct {
	mu      sync.Mutex
	entries map[string]*DimensionValuesOutput
	order   []string
}

const maxCachedValues = 256

func (v *valueCache) get(ctx context.Context, svc Services, in DimensionValuesInput) (*DimensionValuesOutput, error) {
	sql, err := svc.Semantic.DimensionValuesSQL(in.Dimension, in.Metrics)
	if err != nil {
		return nil, err
	}
	// Per caller: callers with their own credentials may see different
	// rows.
	key := auth.CallerFrom(ctx).Principal + "\x00" + sql
	v.mu.Lock()
	hit := v.entries[key]
	v.mu.Unlock()
	if hit != nil {
		out := *hit
		out.Cached = true
		return &out, nil
	}
	res, err := svc.Query.Execute(withMetricLabel(ctx, nil), query.ExecuteInput{SQL: sql, MaxRows: semantic.MaxValues + 1})
	if err != nil {
		return nil, err
	}
	if !res.JobComplete {
		return nil, errStillRunning(res)
	}
	out := &DimensionValuesOutput{Dimension: in.Dimension, SQL: sql, Manifest: svc.Semantic.Stamp()}
	vals := make([]json.RawMessage, 0, len(res.Rows))
	for _, r := range res.Rows {
		var row []json.RawMessage
		if json.Unmarshal(r, &row) == nil && len(row) == 1 {
			vals = append(vals, row[0])
		}
	}
	if len(vals) > semantic.MaxValues || res.Truncated {
		vals, out.Truncated = vals[:min(len(vals), semantic.MaxValues)], true
	}
	out.Values, _ = json.Marshal(vals)
	v.mu.Lock()
	if _, ok := v.entries[key]; !ok {
		if len(v.order) == maxCachedValues {
			delete(v.entries, v.order[0])
			v.order = v.order[1:]
		}
		v.entries[key] = out
		v.order = append(v.order, key)
	}
	v.mu.Unlock()
	return out, nil
}

// errStillRunning is get_dimension_values' answer when its job outlived
// the call's wait.
func errStillRunning(res *query.ExecuteOutput) error {
	return bqerr.New(bqerr.DeadlineExceeded, "the dimension's values were not ready in time").WithJobID(res.JobID).
		WithHint("get_query_results reads them when the job is done; or ask for the values of the dimension again later.")
}
