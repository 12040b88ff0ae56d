package query

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/rows"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// maxSQLBytes is BigQuery's limit on query text.
const maxSQLBytes = 1 << 20

// ExecuteInput is execute_sql's input.
type ExecuteInput struct {
	SQL            string      `json:"sql" jsonschema:"GoogleSQL."`
	Parameters     []Parameter `json:"parameters,omitempty" jsonschema:"Typed query parameters."`
	DefaultDataset string      `json:"defaultDataset,omitempty" jsonschema:"For unqualified table names."`
	MaxRows        int         `json:"maxRows,omitempty" jsonschema:"Default 100."`
	MaxBytesBilled int64       `json:"maxBytesBilled,omitempty" jsonschema:"Lower billing cap in bytes."`
	TimeoutSeconds int         `json:"timeoutSeconds,omitempty" jsonschema:"Job time limit in seconds."`
	Format         string      `json:"format,omitempty" jsonschema:"compact (default) or objects."`
	WaitSeconds    int         `json:"waitSeconds,omitempty" jsonschema:"Seconds to wait (default 45); then jobComplete false if still running."`
}

// ExecuteOutput is execute_sql's result.
type ExecuteOutput struct {
	JobID    string `json:"jobId"`
	Location string `json:"location,omitempty"`
	// JobComplete is false when the call's wait ended before the job did:
	// State, ElapsedMs, BytesProcessed (so far) and Hint say where it is,
	// and there are no rows yet. A cut result's Hint names export_results,
	// when it is listed (cutHint).
	JobComplete   bool            `json:"jobComplete"`
	State         string          `json:"state,omitempty"`
	ElapsedMs     int64           `json:"elapsedMs,omitempty"`
	Hint          string          `json:"hint,omitempty"`
	StatementType string          `json:"statementType,omitempty"`
	Schema        []bqtype.Column `json:"schema"`
	// Rows are arrays of values in schema order (Format compact) or
	// objects keyed by column name, in column order (Format objects).
	Rows   []json.RawMessage `json:"rows"`
	Format rows.Format       `json:"format,omitempty"`
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
	CutCells []rows.CutCell `json:"cutCells,omitempty" jsonschema:"Values shortened because the first row alone passed the server's result size limit: a STRING or BYTES value keeps a prefix of keptBytes, any other value is null. Select part of a long value (SUBSTR) to read the rest."`
	// NextStartIndex is the row to continue from with get_query_results.
	NextStartIndex uint64 `json:"nextStartIndex,omitempty"`
	BytesProcessed int64  `json:"bytesProcessed"`
	// BytesBilled is absent where BigQuery does not report it (pages read
	// with get_query_results: get_job has it).
	BytesBilled int64 `json:"bytesBilled,omitempty"`
	CacheHit    bool  `json:"cacheHit"`
	// CostUSD is what the job cost at Price: its bytes billed on demand,
	// its slot time (SlotMs) under editions. Both are absent while the
	// cost is unknown (as BytesBilled is).
	CostUSD *float64    `json:"costUSD,omitempty" jsonschema:"What the job cost at price: bytesBilled on demand, slotMs under editions billing. Absent while unknown."`
	SlotMs  int64       `json:"slotMs,omitempty" jsonschema:"The job's slot-milliseconds (totalSlotMs), when BigQuery gave them."`
	Price   *cost.Price `json:"price,omitempty" jsonschema:"The price costUSD was computed at: billing, location, perTiBUSD or slotHourUSD, and its source."`
	// EstimateBytes is the dry run's estimate, when one preceded the job
	// (a budget, a confirmation or the allowlist needed it): bytesBilled
	// against it shows what clustering (or the cache) saved.
	EstimateBytes int64 `json:"estimateBytes,omitempty" jsonschema:"The dry-run estimate, when one preceded the job: compare bytesBilled (clustering and the cache bill less)."`
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
	format rows.Format
	sql    string
	// text is sql lexed and read once, for every check before the job.
	text           *sqltext.Text
	params         []bigquery.QueryParameter
	defaultProject string
	defaultDataset string
	maxRows        int
	maxBytesBilled int64
	timeout        time.Duration
	// wait is how long the call waits for the job before it answers
	// jobComplete:false (never beyond timeout, where the job is cancelled).
	wait time.Duration
	// location is where the job runs, once located is set (jobLocation).
	location string
	located  bool
	// charge holds the estimate in the caller's budget for the job until
	// its cost is settled (settle.go, package job), with what the list of
	// last jobs will say of it.
	charge job.Charge
	// plan is the preflight's dry run, when it made one: cost advice for a
	// refusal reads it (advice.go).
	plan *dryRunResult
	// throughView is set when the dataset allowlist let the query through
	// without every table it reads in an allowed dataset (an authorized
	// view): its job's error text is withheld (job.Access.Withheld).
	throughView bool
	// checkEstimate, when set, is one more check of the dry run's
	// estimate before any budget is held (RunToTable's caller's).
	checkEstimate func(bytes int64) error
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
	r := &request{sql: sql, text: sqltext.Parse(sql), params: params, maxRows: s.cfg.DefaultMaxRows, maxBytesBilled: s.cfg.MaxBytesBilled, timeout: s.cfg.QueryTimeout}
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
	if r.format, err = rows.ParseFormat(in.Format); err != nil {
		return nil, bqerr.Invalid(err.Error(), "Use format compact (default) or objects.")
	}
	if r.wait, err = s.waitFor(in.WaitSeconds); err != nil {
		return nil, err
	}
	return r, nil
}

// waitFor validates waitSeconds: how long one call waits for a job.
func (s *Service) waitFor(seconds int) (time.Duration, error) {
	max := int(s.cfg.MaxWait / time.Second)
	switch {
	case seconds < 0 || seconds > max:
		return 0, bqerr.Invalid(fmt.Sprintf("waitSeconds must be between 1 and %d", max),
			"Leave waitSeconds out to use the default; a job still running when the wait ends keeps running, and get_query_results waits again.")
	case seconds > 0:
		return time.Duration(seconds) * time.Second, nil
	}
	return min(defaultWait, s.cfg.MaxWait), nil
}

// Execute runs one statement and returns its first rows. A small query
// costs one jobs.query request (two when the read-only verdict is not yet
// known); see package job (wait.go).
func (s *Service) Execute(ctx context.Context, in ExecuteInput) (*ExecuteOutput, error) {
	start := time.Now()
	r, err := s.validate(in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()

	if err := s.admit(ctx, r); err != nil {
		return nil, err
	}
	chargeFor(ctx, r)

	op := s.operation(r)
	spec, err := r.querySpec()
	if err != nil {
		s.release(ctx, r)
		return nil, bqerr.New(bqerr.Internal, "the query parameters could not be sent").WithCause(err)
	}
	req := s.jobs.QueryRequest(ctx, job.QueryConfig(spec), s.jobLocation(ctx, r), r.maxRows, r.timeout)
	// SQL may name customers or hold literals: debug level only, and cut.
	s.log.DebugContext(ctx, "starting query", "request_id", req.RequestId, "operation", string(op), "sql", bqerr.Truncate(r.sql, 500))
	until := start.Add(min(r.wait, r.timeout))
	// The handle owns the hold from here: whatever happens below, its
	// Close settles the job's cost, follows the job, or gives the hold
	// back when no job started (package job, handle.go).
	h := s.jobs.Begin(op, r.charge, r.throughView)
	defer h.Close(ctx)
	p, err := h.Query(ctx, req, until)
	if err != nil {
		// No job is known to have started (BigQuery refused the query, or
		// never answered; see docs/governance.md), or a cancelled call's
		// job was found, to be stopped here and followed.
		return nil, s.adviseOverCap(ctx, r, s.fail(ctx, err, r, h.Job()))
	}
	if p, err = h.Await(ctx, r.maxRows, start, until); err != nil {
		return nil, s.adviseOverCap(ctx, r, s.fail(ctx, err, r, p.Job))
	}
	out := &ExecuteOutput{JobID: p.Job.ID, Location: p.Job.Location}
	if !p.Complete {
		if r.wait >= r.timeout {
			// The query's own time is up: stop the job.
			<-ctx.Done()
			return nil, s.fail(ctx, ctx.Err(), r, p.Job)
		}
		s.stillRunning(ctx, p.Job, start, out)
		out.Rows, out.Schema = []json.RawMessage{}, []bqtype.Column{}
		out.DurationMs = time.Since(start).Milliseconds()
		return out, nil
	}
	// The job is done: its cost is settled before its rows are read, which
	// may fail without changing what it billed.
	h.Close(ctx)
	out.JobComplete, out.State, out.Format = true, "DONE", r.format
	if err := s.collect(ctx, op, p, 0, r.maxRows, out); err != nil {
		return nil, s.fail(ctx, err, r, p.Job)
	}
	s.addStats(out, p, statementType(r, p))
	if r.plan != nil {
		out.EstimateBytes = r.plan.TotalBytesProcessed
	}
	s.cutHint(out)
	if s.hooks.JobDone != nil {
		s.hooks.JobDone(ctx, out.StatementType, out.BytesProcessed, out.BytesBilled, out.CacheHit)
	}
	out.DurationMs = time.Since(start).Milliseconds()
	return out, nil
}

// adviseOverCap adds cost advice to BigQuery's refusal of a job that
// would bill more than its maximumBytesBilled (bytesBilledLimitExceeded:
// nothing was billed).
func (s *Service) adviseOverCap(ctx context.Context, r *request, err error) error {
	if e, ok := bqerr.As(err); !ok || e.Details.Reason != "bytesBilledLimitExceeded" || ctx.Err() != nil {
		return err
	}
	return s.adviseRefusal(ctx, r, err)
}

// operation picks the policy a statement's job runs under. On a server
// that allows writes, anything the lexical guard does not accept as a single
// SELECT (DML, DDL, a script) is a write and gets the write policy, with its
// own attempt cap and backoff; that errs towards the stricter policy. Every
// other statement is a query.
func (s *Service) operation(r *request) resilience.Operation {
	if s.cfg.AllowWrites && r.text.ReadOnly() != nil {
		return resilience.Write
	}
	return resilience.Query
}

// statementType names the statement for the result. jobs.query does not
// report it, so it is read from what is known: what statementKind calls a
// SELECT is one (on a read-only server BigQuery's dry run agreed), and a
// statement that changed rows is the DML its kind names. Anything else is
// left unnamed rather than guessed.
func statementType(r *request, p *job.Page) string {
	switch kind := statementKind(r.text); kind {
	case "SELECT":
		return kind
	case "INSERT", "UPDATE", "DELETE", "MERGE":
		if p.DML {
			return kind
		}
	}
	return ""
}

// addStats puts a finished job's statistics in out, with its cost when
// they give it: the bytes billed are known (p.billed), and they come with
// the job's slot time.
func (s *Service) addStats(out *ExecuteOutput, p *job.Page, statementType string) {
	out.StatementType = statementType
	out.BytesProcessed, out.BytesBilled, out.CacheHit = p.BytesProcessed, p.BytesBilled, p.CacheHit
	if p.DML || p.Affected != 0 {
		n := p.Affected
		out.AffectedRows = &n
	}
	if p.Billed {
		// A job that used no slot time is one BigQuery answered from
		// cache; otherwise a zero is a figure BigQuery did not give.
		out.SlotMs = p.SlotMs
		out.CostUSD, out.Price = s.jobCost(p.Job.Location, p.BytesBilled, p.SlotMs, slotTimeKnown(p.SlotMs, true, p.CacheHit))
	}
}
