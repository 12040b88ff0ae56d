package observability

import (
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metric names. Names that OpenTelemetry's semantic conventions define are
// used as defined; the rest live under bigquery_mcp.
const (
	MetricOperationDuration   = "mcp.server.operation.duration"
	MetricToolCalls           = "bigquery_mcp.tool.calls"
	MetricErrors              = "bigquery_mcp.errors"
	MetricRetryAttempts       = "bigquery_mcp.retry.attempts"
	MetricRetryExhausted      = "bigquery_mcp.retry.exhausted"
	MetricBreakerState        = "bigquery_mcp.breaker.state"
	MetricBreakerTransitions  = "bigquery_mcp.breaker.transitions"
	MetricBreakerRejected     = "bigquery_mcp.breaker.rejected"
	MetricCacheLookups        = "bigquery_mcp.cache.lookups"
	MetricCacheStaleAge       = "bigquery_mcp.cache.stale_age"
	MetricJobsCompleted       = "bigquery_mcp.jobs.completed"
	MetricJobsCancelled       = "bigquery_mcp.jobs.cancelled"
	MetricJobRecordsEvicted   = "bigquery_mcp.jobs.records_evicted"
	MetricBytesProcessed      = "bigquery_mcp.bytes.processed"
	MetricBytesBilled         = "bigquery_mcp.bytes.billed"
	MetricDBOperationDuration = "db.client.operation.duration"
	MetricStateDuration       = "bigquery_mcp.state.duration"
	MetricStateFailedOpen     = "bigquery_mcp.state.failed_open"
)

// Attribute keys. Metric attributes are all low-cardinality: never SQL,
// table or dataset names, job IDs or principals.
const (
	AttrMCPMethodName    = attribute.Key("mcp.method.name")
	AttrMCPSessionID     = attribute.Key("mcp.session.id") // spans only
	AttrGenAIToolName    = attribute.Key("gen_ai.tool.name")
	AttrGenAIOperation   = attribute.Key("gen_ai.operation.name")
	AttrOutcome          = attribute.Key("outcome")
	AttrErrorType        = attribute.Key("error.type")
	AttrRetryable        = attribute.Key("retryable")
	AttrOperation        = attribute.Key("operation")
	AttrAttempt          = attribute.Key("attempt") // spans only
	AttrAttemptOutcome   = attribute.Key("attempt.outcome")
	AttrRetry            = attribute.Key("retry")
	AttrScope            = attribute.Key("scope")
	AttrFrom             = attribute.Key("from")
	AttrTo               = attribute.Key("to")
	AttrCacheResult      = attribute.Key("result")
	AttrStatementType    = attribute.Key("statement_type")
	AttrCacheHit         = attribute.Key("cache_hit")
	AttrReason           = attribute.Key("reason")
	AttrDBSystemName     = attribute.Key("db.system.name")
	AttrDBOperationName  = attribute.Key("db.operation.name")
	AttrHTTPMethod       = attribute.Key("http.request.method")
	AttrHTTPStatusCode   = attribute.Key("http.response.status_code")
	AttrJobID            = attribute.Key("bigquery.job_id")       // spans only
	AttrErrorReason      = attribute.Key("bigquery.error.reason") // spans only
	AttrBytesProcessed   = attribute.Key("bigquery.bytes_processed")
	AttrBytesBilled      = attribute.Key("bigquery.bytes_billed")
	AttrJobCacheHit      = attribute.Key("bigquery.cache_hit")
	AttrJobStatementType = attribute.Key("bigquery.statement_type")
	AttrStateStep        = attribute.Key("step")
)

// DBSystemName is db.system.name for BigQuery.
const DBSystemName = "gcp.bigquery"

// Histogram buckets, in seconds.
var (
	// From the semantic conventions for mcp.server.operation.duration.
	operationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
	// From the semantic conventions for db.client.operation.duration,
	// extended for long queries.
	dbBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300}
	// A state store step on a nearby Redis takes well under a millisecond.
	stateBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 3}
	// Stale answers are served for up to the cache's MaxStale (hours).
	staleBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400}
)

type instruments struct {
	opDuration     metric.Float64Histogram
	toolCalls      metric.Int64Counter
	errors         metric.Int64Counter
	attempts       metric.Int64Counter
	exhausted      metric.Int64Counter
	breakerState   metric.Int64ObservableGauge
	transitions    metric.Int64Counter
	rejected       metric.Int64Counter
	cacheLookups   metric.Int64Counter
	staleAge       metric.Float64Histogram
	jobsCompleted  metric.Int64Counter
	jobsCancelled  metric.Int64Counter
	recordsEvicted metric.Int64Counter
	bytesProcessed metric.Int64Counter
	bytesBilled    metric.Int64Counter
	dbDuration     metric.Float64Histogram
	stateDuration  metric.Float64Histogram
	stateOpen      metric.Int64Counter
}

func (in *instruments) init(m metric.Meter) error {
	var errs []error
	hist := func(name, unit, desc string, buckets []float64) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit(unit), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(buckets...))
		errs = append(errs, err)
		return h
	}
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	in.opDuration = hist(MetricOperationDuration, "s", "Duration of MCP tool calls, as the server handled them.", operationBuckets)
	in.toolCalls = counter(MetricToolCalls, "{call}", "MCP tool calls, by tool and outcome.")
	in.errors = counter(MetricErrors, "{error}", "Failures by error code: failed tool calls (gen_ai.tool.name) and failed BigQuery attempts (operation).")
	in.attempts = counter(MetricRetryAttempts, "{attempt}", "BigQuery call attempts made by the resilience layer, first tries included (retry=false).")
	in.exhausted = counter(MetricRetryExhausted, "{operation}", "Operations that failed on their last allowed attempt.")
	var err error
	in.breakerState, err = m.Int64ObservableGauge(MetricBreakerState, metric.WithUnit("{state}"),
		metric.WithDescription("Circuit breaker state per scope (project): 0 closed, 1 half-open, 2 open."))
	errs = append(errs, err)
	in.transitions = counter(MetricBreakerTransitions, "{transition}", "Circuit breaker state changes.")
	in.rejected = counter(MetricBreakerRejected, "{call}", "Calls refused at once because a circuit breaker was open.")
	in.cacheLookups = counter(MetricCacheLookups, "{lookup}", "Metadata cache lookups by result: hit, miss, stale.")
	in.staleAge = hist(MetricCacheStaleAge, "s", "Age of stale metadata answers served while BigQuery could not be asked.", staleBuckets)
	in.jobsCompleted = counter(MetricJobsCompleted, "{job}", "Query jobs that finished, by statement type and whether BigQuery's result cache answered.")
	in.jobsCancelled = counter(MetricJobsCancelled, "{job}", "Query jobs the server cancelled, by reason.")
	in.recordsEvicted = counter(MetricJobRecordsEvicted, "{job}", "Job records evicted before their 24 h to keep the store within its size: their jobs can no longer be read through the server.")
	in.bytesProcessed = counter(MetricBytesProcessed, "By", "Bytes processed by finished query jobs.")
	in.bytesBilled = counter(MetricBytesBilled, "By", "Bytes billed for finished query jobs.")
	in.dbDuration = hist(MetricDBOperationDuration, "s", "Duration of each BigQuery REST request, until its response body was read.", dbBuckets)
	in.stateDuration = hist(MetricStateDuration, "s", "Duration of each step of the shared state store (Redis): reserve, settle, release, read, record_job, lookup_job; retries included.", stateBuckets)
	in.stateOpen = counter(MetricStateFailedOpen, "{step}", "Budget steps that went on without the shared state store (--state-fail-open, or no limit set): queries that ran without a budget check (their jobs are charged when the store answers again).")
	return errors.Join(errs...)
}
