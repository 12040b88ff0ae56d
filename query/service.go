// Package query runs SQL for agents: dry runs with cost estimates, guarded
// execution with typed parameters, and results shaped to keep BigQuery's
// meaning within a size an agent can read.
package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/google/uuid"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Runner runs a BigQuery call under the resilience policy of its operation.
type Runner interface {
	Do(ctx context.Context, op resilience.Operation, scope string, fn func(context.Context) error) error
}

// Config holds the server-side limits that agents may tighten but never
// loosen.
type Config struct {
	// Project runs (and pays for) the jobs.
	Project string
	// Location is where jobs run; empty lets BigQuery choose from the data.
	Location string
	// AllowWrites permits statements other than a single SELECT.
	AllowWrites bool
	// MaxBytesBilled is set on every job; an agent may ask for less.
	MaxBytesBilled int64
	// DefaultMaxRows and MaxRowsLimit bound the rows returned per call.
	DefaultMaxRows int
	MaxRowsLimit   int
	// MaxResultBytes bounds the encoded rows returned per call.
	MaxResultBytes int
	// PricePerTiB is the on-demand price used for dry-run estimates (USD).
	PricePerTiB float64
	// DefaultTimeout and MaxTimeout bound how long a query may run.
	DefaultTimeout time.Duration
	MaxTimeout     time.Duration
}

// Service runs queries.
type Service struct {
	client *bigquery.Client
	// rest cancels jobs with one plain request: the client's Job.Cancel
	// retries until its context ends, which a cancel on the way out of a
	// timed-out call cannot afford.
	rest   *bq.Service
	runner Runner
	hooks  Hooks
	cfg    Config
	log    *slog.Logger
	// newJobID picks a job ID before the first attempt so that a retried
	// insert can never start a second job.
	newJobID func() string
}

// Hooks let observability see what jobs did. Every field is optional.
type Hooks struct {
	// JobDone is called when a query job finished, with its statistics.
	JobDone func(ctx context.Context, statementType string, bytesProcessed, bytesBilled int64, cacheHit bool)
	// JobCancelled is called when the server cancelled a job; reason is
	// "timeout" or "client_cancel".
	JobCancelled func(ctx context.Context, reason string)
}

// NewService returns a query service.
func NewService(client *bigquery.Client, rest *bq.Service, runner Runner, cfg Config, hooks Hooks, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{client: client, rest: rest, runner: runner, hooks: hooks, cfg: cfg, log: log, newJobID: func() string { return "bqmcp_" + uuid.NewString() }}
}

// maxSQLBytes is BigQuery's limit on query text.
const maxSQLBytes = 1 << 20

// ExecuteInput is execute_sql's input.
type ExecuteInput struct {
	SQL            string      `json:"sql" jsonschema:"GoogleSQL to run. Reference values as @name parameters rather than pasting them into the text."`
	Parameters     []Parameter `json:"parameters,omitempty" jsonschema:"Named query parameters, each with an explicit GoogleSQL type."`
	DefaultDataset string      `json:"defaultDataset,omitempty" jsonschema:"Dataset (or project.dataset) used for unqualified table names."`
	MaxRows        int         `json:"maxRows,omitempty" jsonschema:"Maximum rows to return (default 100; the server sets the upper limit)."`
	MaxBytesBilled int64       `json:"maxBytesBilled,omitempty" jsonschema:"Fail the query instead of billing more than this many bytes. May only lower the server's cap."`
	TimeoutSeconds int         `json:"timeoutSeconds,omitempty" jsonschema:"Cancel the job if it has not finished after this many seconds. May only lower the server's limit."`
}

// ExecuteOutput is execute_sql's result.
type ExecuteOutput struct {
	JobID         string          `json:"jobId"`
	Location      string          `json:"location,omitempty"`
	StatementType string          `json:"statementType,omitempty"`
	Schema        []bqtype.Column `json:"schema"`
	// Rows are JSON objects keyed by column name, in column order.
	Rows []json.RawMessage `json:"rows"`
	// RowCount is how many rows this result holds; TotalRows how many the
	// query produced.
	RowCount  int    `json:"rowCount"`
	TotalRows uint64 `json:"totalRows"`
	// Truncated is true when a limit cut the rows (TotalRows > RowCount
	// without Incomplete); TruncatedBy says which
	// limit cut the rows: "maxRows" or "maxResultBytes".
	Truncated   bool   `json:"truncated"`
	TruncatedBy string `json:"truncatedBy,omitempty"`
	// NextStartIndex is the row to continue from with get_query_results.
	NextStartIndex uint64 `json:"nextStartIndex,omitempty"`
	BytesProcessed int64  `json:"bytesProcessed"`
	BytesBilled    int64  `json:"bytesBilled"`
	CacheHit       bool   `json:"cacheHit"`
	// AffectedRows is the number of rows a DML statement changed.
	AffectedRows *int64 `json:"affectedRows,omitempty"`
	DurationMs   int64  `json:"durationMs"`
	// Incomplete is true when reading results failed part-way: Rows are
	// correct but not all, and Warning says how to resume.
	Incomplete bool   `json:"incomplete,omitempty"`
	Warning    string `json:"warning,omitempty"`
}

// request is a validated query request.
type request struct {
	sql            string
	params         []bigquery.QueryParameter
	defaultProject string
	defaultDataset string
	maxRows        int
	maxBytesBilled int64
	timeout        time.Duration
}

func (s *Service) validate(in ExecuteInput) (*request, error) {
	if s.cfg.Project == "" {
		return nil, bqerr.Invalid("the server has no project to run queries in",
			"Ask the user to start the server with --project (BIGQUERY_PROJECT).")
	}
	sql := strings.TrimSpace(in.SQL)
	if sql == "" {
		return nil, bqerr.Invalid("sql is empty", "Pass the GoogleSQL statement to run in sql.")
	}
	if len(sql) > maxSQLBytes {
		return nil, bqerr.Invalid("sql is longer than BigQuery's 1 MB limit", "Shorten the query; pass large value lists as an ARRAY parameter.")
	}
	params, err := BuildParameters(in.Parameters)
	if err != nil {
		return nil, err
	}
	r := &request{sql: sql, params: params, maxRows: s.cfg.DefaultMaxRows, maxBytesBilled: s.cfg.MaxBytesBilled, timeout: s.cfg.DefaultTimeout}
	if ds := strings.ReplaceAll(strings.TrimSpace(in.DefaultDataset), "`", ""); ds != "" {
		r.defaultProject, r.defaultDataset = s.cfg.Project, ds
		if p, d, ok := strings.Cut(ds, "."); ok {
			r.defaultProject, r.defaultDataset = p, d
		}
		if err := bqtype.ValidateDatasetID(r.defaultDataset); err != nil {
			return nil, err
		}
	}
	switch {
	case in.MaxRows < 0 || in.MaxRows > s.cfg.MaxRowsLimit:
		return nil, bqerr.Invalid(fmt.Sprintf("maxRows must be between 1 and %d", s.cfg.MaxRowsLimit),
			"Ask for fewer rows, aggregate in SQL, or page through results with get_query_results.")
	case in.MaxRows > 0:
		r.maxRows = in.MaxRows
	}
	switch {
	case in.MaxBytesBilled < 0 || in.MaxBytesBilled > s.cfg.MaxBytesBilled:
		return nil, bqerr.Invalid(fmt.Sprintf("maxBytesBilled must be between 1 and the server cap of %d bytes", s.cfg.MaxBytesBilled),
			"Leave maxBytesBilled out to use the server cap, or ask for less. Use dry_run_sql to see how many bytes the query reads.")
	case in.MaxBytesBilled > 0:
		r.maxBytesBilled = in.MaxBytesBilled
	}
	switch max := int(s.cfg.MaxTimeout / time.Second); {
	case in.TimeoutSeconds < 0 || in.TimeoutSeconds > max:
		return nil, bqerr.Invalid(fmt.Sprintf("timeoutSeconds must be between 1 and %d", max),
			"Leave timeoutSeconds out to use the server default.")
	case in.TimeoutSeconds > 0:
		r.timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	return r, nil
}

func (s *Service) newQuery(r *request) *bigquery.Query {
	q := s.client.Query(r.sql)
	q.Parameters = r.params
	q.Location = s.cfg.Location
	q.DefaultProjectID = r.defaultProject
	q.DefaultDatasetID = r.defaultDataset
	q.MaxBytesBilled = r.maxBytesBilled
	return q
}

// Execute runs one statement and returns its first rows.
func (s *Service) Execute(ctx context.Context, in ExecuteInput) (*ExecuteOutput, error) {
	start := time.Now()
	r, err := s.validate(in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()

	if !s.cfg.AllowWrites {
		if err := s.checkReadOnly(ctx, r); err != nil {
			return nil, err
		}
	}

	q := s.newQuery(r)
	q.JobID = s.newJobID()
	// SQL may name customers or hold literals: debug level only, and cut.
	s.log.DebugContext(ctx, "starting query job", "job_id", q.JobID, "sql", bqerr.Truncate(r.sql, 500))
	job, err := s.insert(ctx, q)
	if err != nil {
		return nil, s.fail(ctx, err, r, q.JobID, q.Location)
	}
	if st := job.LastStatus(); st != nil && st.Done() && st.Err() != nil {
		return nil, s.fail(ctx, st.Err(), r, job.ID(), job.Location())
	}
	// Reading waits for the job to finish (Job.Read polls
	// getQueryResults), so no separate Job.Wait: it would send the same
	// polls again and double the requests of every query.
	out := &ExecuteOutput{JobID: job.ID(), Location: job.Location()}
	if err := s.readRows(ctx, job, 0, r.maxRows, out); err != nil {
		return nil, s.fail(ctx, err, r, job.ID(), job.Location())
	}
	var status *bigquery.JobStatus
	err = s.runner.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		var err error
		status, err = job.Status(ctx)
		return err
	})
	switch {
	case err != nil:
		// The rows are in hand; only the statistics are missing.
		s.log.WarnContext(ctx, "job statistics unavailable", "job_id", job.ID(), "error", bqerr.Redact(err.Error()))
		out.Warning = strings.TrimSpace(out.Warning + " Job statistics (bytes processed and billed, cache hit) could not be read; see get_job.")
	case status.Err() != nil:
		return nil, s.fail(ctx, status.Err(), r, job.ID(), job.Location())
	default:
		addStats(out, status)
		if s.hooks.JobDone != nil {
			s.hooks.JobDone(ctx, out.StatementType, out.BytesProcessed, out.BytesBilled, out.CacheHit)
		}
	}
	out.DurationMs = time.Since(start).Milliseconds()
	return out, nil
}

// insert starts the job. The job ID is fixed before the first attempt, so a
// retry after a lost response meets 409 duplicate: the job exists, and is
// fetched instead of started twice.
func (s *Service) insert(ctx context.Context, q *bigquery.Query) (*bigquery.Job, error) {
	var job *bigquery.Job
	err := s.runner.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		var err error
		job, err = q.Run(ctx)
		if isDuplicate(err) {
			job, err = s.client.JobFromIDLocation(ctx, q.JobID, q.Location)
		}
		return err
	})
	return job, err
}

func isDuplicate(err error) bool {
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != 409 {
		return false
	}
	return len(ge.Errors) == 0 || ge.Errors[0].Reason == "duplicate"
}

// checkReadOnly refuses anything but a single SELECT before any job runs:
// first by reading the SQL, then by asking BigQuery what the statement is.
// The lexical guard cannot be fooled by BigQuery and BigQuery's
// statementType cannot be fooled by clever text; each covers the other.
func (s *Service) checkReadOnly(ctx context.Context, r *request) error {
	if err := CheckReadOnly(r.sql); err != nil {
		reason := err.Error()
		var v *ReadOnlyViolation
		if errors.As(err, &v) {
			reason = v.Reason
			if v.Statements <= 1 && !writeKeywords[v.Keyword] {
				// Not a recognisable write: most likely a typo ("SELEC")
				// or unfinished SQL. BigQuery's syntax error (with line and
				// column) helps the agent more than "read-only"; a dry run
				// never executes anything.
				if _, derr := s.dryRun(ctx, r); derr != nil {
					return s.fail(ctx, derr, r, "", "")
				}
			}
		}
		return readOnlyError(reason, r.sql)
	}
	stats, err := s.dryRun(ctx, r)
	if err != nil {
		return s.fail(ctx, err, r, "", "")
	}
	if st := stats.StatementType; st != "" && st != "SELECT" {
		return readOnlyError(fmt.Sprintf("BigQuery reports a %s statement", st), r.sql)
	}
	return nil
}

// writeKeywords start statements that are refused without a round trip.
var writeKeywords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "TRUNCATE": true, "CREATE": true, "DROP": true,
	"ALTER": true, "UNDROP": true, "EXPORT": true, "LOAD": true, "CALL": true, "DECLARE": true, "SET": true, "BEGIN": true,
	"EXECUTE": true, "GRANT": true, "REVOKE": true, "ASSERT": true, "COMMIT": true, "ROLLBACK": true, "RAISE": true,
}

func readOnlyError(reason, sql string) error {
	return bqerr.Invalid("execute_sql is read-only on this server: "+reason,
		"Only a single SELECT (or WITH … SELECT) can run. To change data, ask the user to restart the server with --allow-writes.").
		WithQuery(sql)
}

// dryRun asks BigQuery to validate and plan the query without running it.
func (s *Service) dryRun(ctx context.Context, r *request) (*bigquery.QueryStatistics, error) {
	q := s.newQuery(r)
	q.DryRun = true
	var job *bigquery.Job
	err := s.runner.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		var err error
		job, err = q.Run(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	st := job.LastStatus()
	if st == nil || st.Statistics == nil {
		return &bigquery.QueryStatistics{}, nil
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	qs, _ := st.Statistics.Details.(*bigquery.QueryStatistics)
	if qs == nil {
		qs = &bigquery.QueryStatistics{}
	}
	if qs.TotalBytesProcessed == 0 {
		qs.TotalBytesProcessed = st.Statistics.TotalBytesProcessed
	}
	return qs, nil
}

// DryRunInput is dry_run_sql's input.
type DryRunInput struct {
	SQL            string      `json:"sql" jsonschema:"GoogleSQL to check and estimate without running it."`
	Parameters     []Parameter `json:"parameters,omitempty" jsonschema:"Named query parameters, each with an explicit GoogleSQL type."`
	DefaultDataset string      `json:"defaultDataset,omitempty" jsonschema:"Dataset (or project.dataset) used for unqualified table names."`
}

// DryRunOutput is dry_run_sql's result.
type DryRunOutput struct {
	Valid         bool   `json:"valid"`
	StatementType string `json:"statementType"`
	// BytesProcessed is what the query would read; on-demand billing charges
	// for it (with a 10 MB minimum per table referenced).
	BytesProcessed   int64   `json:"bytesProcessed"`
	EstimatedCostUSD float64 `json:"estimatedCostUSD"`
	PricePerTiBUSD   float64 `json:"pricePerTiBUSD"`
	// ReferencedTables are project.dataset.table names, when BigQuery reports them.
	ReferencedTables []string        `json:"referencedTables"`
	Schema           []bqtype.Column `json:"schema"`
	// WouldExecute says whether execute_sql on this server would run it.
	WouldExecute bool   `json:"wouldExecute"`
	Note         string `json:"note,omitempty"`
}

// DryRun validates a query and estimates its cost without running it.
func (s *Service) DryRun(ctx context.Context, in DryRunInput) (*DryRunOutput, error) {
	r, err := s.validate(ExecuteInput{SQL: in.SQL, Parameters: in.Parameters, DefaultDataset: in.DefaultDataset})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	qs, err := s.dryRun(ctx, r)
	if err != nil {
		return nil, s.fail(ctx, err, r, "", "")
	}
	out := &DryRunOutput{
		Valid:            true,
		StatementType:    qs.StatementType,
		BytesProcessed:   qs.TotalBytesProcessed,
		PricePerTiBUSD:   s.cfg.PricePerTiB,
		EstimatedCostUSD: Cost(qs.TotalBytesProcessed, s.cfg.PricePerTiB),
		ReferencedTables: []string{},
		Schema:           bqtype.Columns(qs.Schema),
		WouldExecute:     true,
	}
	for _, t := range qs.ReferencedTables {
		out.ReferencedTables = append(out.ReferencedTables, t.ProjectID+"."+t.DatasetID+"."+t.TableID)
	}
	if !s.cfg.AllowWrites {
		if err := CheckReadOnly(r.sql); err != nil {
			out.WouldExecute, out.Note = false, "execute_sql would refuse this on a read-only server: "+err.Error()
		} else if st := qs.StatementType; st != "" && st != "SELECT" {
			out.WouldExecute, out.Note = false, "execute_sql would refuse this on a read-only server: it is a "+st+" statement"
		}
	}
	if qs.TotalBytesProcessed > s.cfg.MaxBytesBilled {
		out.WouldExecute = false
		out.Note = strings.TrimSpace(out.Note + fmt.Sprintf(" It reads more bytes than the server cap of %d; select fewer columns or filter on partition/cluster columns.", s.cfg.MaxBytesBilled))
	}
	return out, nil
}

// Cost estimates the on-demand price of scanning bytes, in USD, rounded to
// the cent's hundredth.
func Cost(bytes int64, pricePerTiB float64) float64 {
	const tib = 1 << 40
	c := float64(bytes) / tib * pricePerTiB
	return float64(int64(c*10000+0.5)) / 10000
}

// GetResultsInput is get_query_results' input.
type GetResultsInput struct {
	JobID      string `json:"jobId" jsonschema:"The jobId returned by execute_sql."`
	Location   string `json:"location,omitempty" jsonschema:"The job's location, as returned by execute_sql."`
	StartIndex uint64 `json:"startIndex,omitempty" jsonschema:"Zero-based row to start from (nextStartIndex of the previous result)."`
	MaxRows    int    `json:"maxRows,omitempty" jsonschema:"Maximum rows to return (default 100)."`
}

// GetResults reads a page of a finished query's results.
func (s *Service) GetResults(ctx context.Context, in GetResultsInput) (*ExecuteOutput, error) {
	id, loc, err := s.jobRef(in.JobID, in.Location)
	if err != nil {
		return nil, err
	}
	maxRows := s.cfg.DefaultMaxRows
	switch {
	case in.MaxRows < 0 || in.MaxRows > s.cfg.MaxRowsLimit:
		return nil, bqerr.Invalid(fmt.Sprintf("maxRows must be between 1 and %d", s.cfg.MaxRowsLimit), "Ask for fewer rows per page.")
	case in.MaxRows > 0:
		maxRows = in.MaxRows
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.DefaultTimeout)
	defer cancel()
	job, status, err := s.job(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	if status.State != bigquery.Done {
		return nil, bqerr.Newf(bqerr.InvalidArgument, "job %s has not finished (state %s)", id, stateName(status.State)).
			WithHint("Wait and call get_query_results again, or check it with get_job.").WithJobID(id)
	}
	if err := status.Err(); err != nil {
		return nil, bqerr.From(err).WithJobID(id)
	}
	out := &ExecuteOutput{JobID: id, Location: job.Location()}
	addStats(out, status)
	if err := s.readRows(ctx, job, in.StartIndex, maxRows, out); err != nil {
		return nil, bqerr.From(err).WithJobID(id)
	}
	return out, nil
}

// JobInput names a job for get_job and cancel_job.
type JobInput struct {
	JobID    string `json:"jobId" jsonschema:"The BigQuery job ID."`
	Location string `json:"location,omitempty" jsonschema:"The job's location (defaults to the server's)."`
}

// JobOutput describes a job.
type JobOutput struct {
	JobID          string       `json:"jobId"`
	Location       string       `json:"location,omitempty"`
	State          string       `json:"state"`
	StatementType  string       `json:"statementType,omitempty"`
	BytesProcessed int64        `json:"bytesProcessed"`
	BytesBilled    int64        `json:"bytesBilled"`
	CacheHit       bool         `json:"cacheHit"`
	Created        string       `json:"created,omitempty"`
	Started        string       `json:"started,omitempty"`
	Ended          string       `json:"ended,omitempty"`
	Error          *bqerr.Error `json:"error,omitempty"`
}

// jobRef validates a job ID and fills in the server's location.
func (s *Service) jobRef(jobID, location string) (id, loc string, err error) {
	id = strings.TrimSpace(jobID)
	if id == "" {
		return "", "", bqerr.Invalid("jobId is empty", "Pass the jobId returned by execute_sql.")
	}
	loc = strings.TrimSpace(location)
	if loc == "" {
		loc = s.cfg.Location
	}
	return id, loc, nil
}

// GetJob reports a job's state and statistics.
func (s *Service) GetJob(ctx context.Context, in JobInput) (*JobOutput, error) {
	id, loc, err := s.jobRef(in.JobID, in.Location)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.DefaultTimeout)
	defer cancel()
	job, status, err := s.job(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	return jobOutput(job, status), nil
}

// CancelJob asks BigQuery to stop a job. Cancellation is best effort: the
// job may finish first.
func (s *Service) CancelJob(ctx context.Context, in JobInput) (*JobOutput, error) {
	id, loc, err := s.jobRef(in.JobID, in.Location)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.DefaultTimeout)
	defer cancel()
	job, _, err := s.job(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	err = s.runner.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		call := s.rest.Jobs.Cancel(s.cfg.Project, id).Context(ctx)
		if job.Location() != "" {
			call = call.Location(job.Location())
		}
		_, err := call.Do()
		return err
	})
	if err != nil {
		return nil, bqerr.From(err).WithJobID(id)
	}
	status, err := job.Status(ctx)
	if err != nil {
		status = job.LastStatus()
	}
	return jobOutput(job, status), nil
}

func (s *Service) job(ctx context.Context, id, loc string) (*bigquery.Job, *bigquery.JobStatus, error) {
	var job *bigquery.Job
	err := s.runner.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		var err error
		job, err = s.client.JobFromIDLocation(ctx, id, loc)
		return err
	})
	if err != nil {
		return nil, nil, bqerr.From(err).WithJobID(id)
	}
	status := job.LastStatus()
	if status == nil {
		status = &bigquery.JobStatus{}
	}
	return job, status, nil
}

func jobOutput(job *bigquery.Job, st *bigquery.JobStatus) *JobOutput {
	out := &JobOutput{JobID: job.ID(), Location: job.Location(), State: stateName(st.State)}
	if err := st.Err(); err != nil {
		out.Error = bqerr.From(err)
	}
	if s := st.Statistics; s != nil {
		out.BytesProcessed = s.TotalBytesProcessed
		out.Created = timeString(s.CreationTime)
		out.Started = timeString(s.StartTime)
		out.Ended = timeString(s.EndTime)
		if qs, ok := s.Details.(*bigquery.QueryStatistics); ok {
			out.StatementType, out.BytesBilled, out.CacheHit = qs.StatementType, qs.TotalBytesBilled, qs.CacheHit
		}
	}
	return out
}

func stateName(s bigquery.State) string {
	switch s {
	case bigquery.Pending:
		return "PENDING"
	case bigquery.Running:
		return "RUNNING"
	case bigquery.Done:
		return "DONE"
	}
	return "UNKNOWN"
}

func timeString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func addStats(out *ExecuteOutput, st *bigquery.JobStatus) {
	if st == nil || st.Statistics == nil {
		return
	}
	out.BytesProcessed = st.Statistics.TotalBytesProcessed
	if qs, ok := st.Statistics.Details.(*bigquery.QueryStatistics); ok {
		out.StatementType = qs.StatementType
		out.BytesBilled = qs.TotalBytesBilled
		out.CacheHit = qs.CacheHit
		if qs.StatementType != "" && qs.StatementType != "SELECT" && qs.DMLStats != nil {
			n := qs.NumDMLAffectedRows
			out.AffectedRows = &n
		}
	}
}

// readRows reads up to maxRows rows from start, and stops early when the
// encoded rows would pass the server's byte cap, so one wide row cannot
// flood the agent's context.
//
// Each retry resumes after the last row read, so rows are never read twice.
// When pages keep failing after some rows arrived, those rows are returned
// marked incomplete, with where to resume, rather than thrown away.
func (s *Service) readRows(ctx context.Context, job *bigquery.Job, start uint64, maxRows int, out *ExecuteOutput) error {
	out.Rows = []json.RawMessage{}
	size := 0
	var (
		rowSchema bigquery.Schema
		total     uint64
		byteCut   bool
	)
	err := s.runner.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		it, err := job.Read(ctx)
		if err != nil {
			return err
		}
		it.StartIndex = start + uint64(len(out.Rows))
		it.PageInfo().MaxSize = min(maxRows-len(out.Rows)+1, 10000)
		var row []bigquery.Value
		for len(out.Rows) < maxRows {
			err := it.Next(&row)
			if errors.Is(err, iterator.Done) {
				break
			}
			if err != nil {
				return err
			}
			rowSchema, total = it.Schema, it.TotalRows
			enc, err := EncodeRow(it.Schema, row)
			if err != nil {
				return bqerr.New(bqerr.Internal, "a result row could not be encoded").WithCause(err)
			}
			if size+len(enc)+1 > s.cfg.MaxResultBytes && len(out.Rows) > 0 {
				byteCut = true
				break
			}
			size += len(enc) + 1
			out.Rows = append(out.Rows, enc)
		}
		rowSchema, total = it.Schema, it.TotalRows
		return nil
	})
	out.RowCount = len(out.Rows)
	next := start + uint64(out.RowCount)
	if err != nil {
		if out.RowCount == 0 || ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
			return err
		}
		e := bqerr.From(err)
		out.Schema, out.TotalRows = bqtype.Columns(rowSchema), total
		out.Incomplete = true
		out.NextStartIndex = next
		out.Warning = fmt.Sprintf("Reading results failed after %d rows (%s: %s). These rows are correct but not all; call get_query_results with jobId %s and startIndex %d to continue.",
			out.RowCount, e.Code, e.Message, job.ID(), next)
		s.log.WarnContext(ctx, "partial results", "job_id", job.ID(), "rows", out.RowCount, "code", string(e.Code), "cause", bqerr.Redact(err.Error()))
		return nil
	}
	out.Schema = bqtype.Columns(rowSchema)
	out.TotalRows = total
	if next < out.TotalRows {
		out.Truncated = true
		out.NextStartIndex = next
		out.TruncatedBy = "maxRows"
		if byteCut {
			out.TruncatedBy = "maxResultBytes"
		}
	}
	return nil
}

// fail maps err for the agent and, when the query's deadline or the
// client's cancellation ended the call, stops the job too: a query nobody
// waits for must not go on spending.
func (s *Service) fail(ctx context.Context, err error, r *request, jobID, location string) error {
	e := bqerr.From(err)
	if ctx.Err() != nil {
		reason := "timeout"
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			e = bqerr.Newf(bqerr.DeadlineExceeded, "the query did not finish within %s", r.timeout).WithCause(err)
			if jobID != "" {
				e = e.WithHint("The job " + jobID + " was cancelled. Narrow the query (fewer columns, a partition filter, a LIMIT) or raise timeoutSeconds up to the server maximum.")
			} else {
				e = e.WithHint("Narrow the query or raise timeoutSeconds up to the server maximum, then try again.")
			}
		case errors.Is(ctx.Err(), context.Canceled):
			reason = "client_cancel"
			e = bqerr.New(bqerr.DeadlineExceeded, "the request was cancelled before the query finished").WithCause(err)
			e.Retryable = false
		}
		if jobID != "" {
			s.cancelJob(ctx, jobID, location, reason)
		}
	}
	if jobID != "" && e.Details.JobID == "" {
		e = e.WithJobID(jobID)
	}
	if e.Details.Query == "" && (e.Code == bqerr.QueryError || e.Code == bqerr.DeadlineExceeded || e.Code == bqerr.ResourceExhausted) {
		e = e.WithQuery(r.sql)
	}
	return e
}

// cancelJob stops a job whose caller stopped waiting. The caller's context
// is already done, so cancellation gets a short context of its own, and one
// request: if it fails, the job's own limits (maximumBytesBilled) still hold.
func (s *Service) cancelJob(ctx context.Context, jobID, location, reason string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	call := s.rest.Jobs.Cancel(s.cfg.Project, jobID).Context(cctx)
	if location != "" {
		call = call.Location(location)
	}
	if _, err := call.Do(); err != nil {
		s.log.WarnContext(ctx, "job cancel failed", "job_id", jobID, "reason", reason, "error", bqerr.Redact(err.Error()))
		return
	}
	if s.hooks.JobCancelled != nil {
		s.hooks.JobCancelled(ctx, reason)
	}
	s.log.InfoContext(ctx, "job cancelled", "job_id", jobID, "reason", reason)
}
