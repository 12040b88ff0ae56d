package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

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
	// Truncated is true when a limit cut the result: rows were left out
	// (TotalRows > RowCount without Incomplete) or values were shortened
	// (CutCells). TruncatedBy says which limit: "maxRows" or
	// "maxResultBytes" when rows were left out, else "cellBytes".
	Truncated   bool   `json:"truncated"`
	TruncatedBy string `json:"truncatedBy,omitempty"`
	// CutCells lists the values of the first row that were shortened
	// because that row alone passed the byte cap.
	CutCells []CutCell `json:"cutCells,omitempty" jsonschema:"Values shortened because the first row alone passed the server's result size limit: a STRING or BYTES value keeps a prefix of keptBytes, any other value is null. Select part of a long value (SUBSTR) to read the rest."`
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
	r := &request{sql: sql, params: params, maxRows: s.cfg.DefaultMaxRows, maxBytesBilled: s.cfg.MaxBytesBilled, timeout: s.cfg.QueryTimeout}
	if ds := strings.ReplaceAll(strings.TrimSpace(in.DefaultDataset), "`", ""); ds != "" {
		r.defaultProject, r.defaultDataset = s.cfg.Project, ds
		if p, d, ok := strings.Cut(ds, "."); ok {
			r.defaultProject, r.defaultDataset = p, d
		}
		if err := bqtype.ValidateProjectID(r.defaultProject); err != nil {
			return nil, err
		}
		if err := bqtype.ValidateDatasetID(r.defaultDataset); err != nil {
			return nil, err
		}
	}
	switch {
	case in.MaxRows < 0 || in.MaxRows > s.cfg.MaxRows:
		return nil, bqerr.Invalid(fmt.Sprintf("maxRows must be between 1 and %d", s.cfg.MaxRows),
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
	switch max := int(s.cfg.MaxQueryTimeout / time.Second); {
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

	op := s.operation(r.sql)
	q := s.newQuery(r)
	q.JobID = s.newJobID()
	// SQL may name customers or hold literals: debug level only, and cut.
	s.log.DebugContext(ctx, "starting query job", "job_id", q.JobID, "operation", string(op), "sql", bqerr.Truncate(r.sql, 500))
	job, err := s.insert(ctx, op, q)
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
	if err := s.readRows(ctx, op, job, 0, r.maxRows, out); err != nil {
		return nil, s.fail(ctx, err, r, job.ID(), job.Location())
	}
	var status *bigquery.JobStatus
	err = s.exec.Do(ctx, op, s.cfg.Project, func(ctx context.Context) error {
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

// operation picks the policy a statement's job runs under. On a server
// that allows writes, anything the lexical guard does not accept as a single
// SELECT (DML, DDL, a script) is a write and gets the write policy, with its
// own attempt cap and backoff; that errs towards the stricter policy. Every
// other statement is a query.
func (s *Service) operation(sql string) resilience.Operation {
	if s.cfg.AllowWrites && CheckReadOnly(sql) != nil {
		return resilience.Write
	}
	return resilience.Query
}

// insert starts the job. The job ID is fixed before the first attempt, so a
// retry after a lost response meets 409 duplicate: the job exists, and is
// fetched instead of started twice.
func (s *Service) insert(ctx context.Context, op resilience.Operation, q *bigquery.Query) (*bigquery.Job, error) {
	var job *bigquery.Job
	err := s.exec.Do(ctx, op, s.cfg.Project, func(ctx context.Context) error {
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
