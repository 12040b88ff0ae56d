// Package insert appends rows to BigQuery tables by streaming insert
// (tabledata.insertAll) for the insert_rows tool. It has one job: turn an
// agent's rows into one request that is safe to retry, refuse what BigQuery
// would refuse (or what would be too large) before sending anything, and
// report per-row errors by the row's index.
//
// Retries are safe because every row's insertId is chosen once, before the
// first attempt: BigQuery drops a row it has already seen with the same
// insertId (best effort, for about a minute), so an attempt whose answer was
// lost does not add the rows twice.
package insert

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Limits bound one call. BigQuery allows 10 MB and 50,000 rows per
// insertAll request and recommends 500 rows; ours stay below its hard
// limits so the refusal is ours, clear, and costs no request.
type Limits struct {
	// MaxRows is the most rows one call may insert.
	MaxRows int
	// MaxBytes is the most bytes the request body may have, as sent.
	MaxBytes int
}

// The limits when Config leaves them zero.
const (
	DefaultMaxRows  = 500
	DefaultMaxBytes = 9 << 20
)

// Config configures the service, given once to NewService like every
// service's Config: what it sends through, and its settings.
type Config struct {
	// REST sends the insertAll requests. Required.
	REST *bq.Service
	// Executor runs each call under its write policy. Required.
	Executor *resilience.Executor
	// Project is the default project for tables named dataset.table.
	Project string
	// Datasets, when set, is the allowlist a table's dataset must pass
	// before any request; nil allows every dataset.
	Datasets *governance.Allowlist
	// Limits bound one call; zero fields take DefaultMaxRows and
	// DefaultMaxBytes.
	Limits Limits
	// Timeout bounds one call, retries included (the write policy sets
	// none of its own). Zero: one minute.
	Timeout time.Duration
}

// Service runs streaming inserts.
type Service struct {
	rest *bq.Service
	exec *resilience.Executor
	cfg  Config
	// newInsertID picks a row's insertId. It is called once per row before
	// the first attempt, never per attempt.
	newInsertID func() string
}

// NewService returns an insert service configured once by cfg.
func NewService(cfg Config) *Service {
	if cfg.Limits.MaxRows <= 0 {
		cfg.Limits.MaxRows = DefaultMaxRows
	}
	if cfg.Limits.MaxBytes <= 0 {
		cfg.Limits.MaxBytes = DefaultMaxBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	return &Service{rest: cfg.REST, exec: cfg.Executor, cfg: cfg, newInsertID: uuid.NewString}
}

// Input is insert_rows' arguments.
type Input struct {
	Table               string           `json:"table" jsonschema:"[project.]dataset.table"`
	Rows                []map[string]any `json:"rows" jsonschema:"Objects: column name to value."`
	SkipInvalidRows     bool             `json:"skipInvalidRows,omitempty" jsonschema:"Insert the valid rows when some are invalid (default: all or none)."`
	IgnoreUnknownValues bool             `json:"ignoreUnknownValues,omitempty" jsonschema:"Drop fields that match no column instead of failing the row."`
}

// Insert appends in.Rows to in.Table. Values are sent as given: numbers
// keep their exact digits (arguments decode as json.Number). Rows BigQuery
// refuses come back in Output.Errors by index; the call fails only when the
// request as a whole does.
func (s *Service) Insert(ctx context.Context, in Input) (*Output, error) {
	ref, err := s.table(in.Table)
	if err != nil {
		return nil, err
	}
	req, err := s.request(in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	var resp *bq.TableDataInsertAllResponse
	// The same req, and so the same insertIds, on every attempt.
	err = s.exec.Do(ctx, resilience.Write, ref.Project, func(ctx context.Context) error {
		var err error
		resp, err = s.rest.Tabledata.InsertAll(ref.Project, ref.Dataset, ref.Table, req).Context(ctx).Do()
		return err
	})
	if err != nil {
		return nil, bqerr.From(err)
	}
	return result(ref, len(in.Rows), in.SkipInvalidRows, resp.InsertErrors), nil
}

// table parses the table name, fills in the default project and checks
// the allowlist: all before any request.
func (s *Service) table(name string) (bqtype.TableRef, error) {
	ref, err := bqtype.ParseTableRef(name)
	if err != nil {
		return ref, err
	}
	if strings.Contains(ref.Table, "*") {
		return ref, bqerr.Invalid("table "+ref.Table+" is a wildcard; rows go into one table", "Name the one table to insert into.")
	}
	if ref.Project == "" {
		ref.Project = s.cfg.Project
	}
	if ref.Project == "" {
		return ref, bqerr.Invalid("table "+ref.String()+" names no project and the server has none",
			"Give the table as project.dataset.table, or start the server with --project.")
	}
	return ref, s.cfg.Datasets.Check(ref.Project, ref.Dataset)
}

// request builds the insertAll request, choosing every row's insertId, and
// refuses it when it breaks a limit.
func (s *Service) request(in Input) (*bq.TableDataInsertAllRequest, error) {
	lim := s.cfg.Limits
	switch {
	case len(in.Rows) == 0:
		return nil, bqerr.Invalid("rows is empty", "Pass at least one row: an object of column name to value.")
	case len(in.Rows) > lim.MaxRows:
		return nil, bqerr.Invalid(fmt.Sprintf("%d rows in one call; the limit is %d", len(in.Rows), lim.MaxRows),
			fmt.Sprintf("Split the rows into calls of at most %d.", lim.MaxRows))
	}
	req := &bq.TableDataInsertAllRequest{
		Rows:                make([]*bq.TableDataInsertAllRequestRows, len(in.Rows)),
		SkipInvalidRows:     in.SkipInvalidRows,
		IgnoreUnknownValues: in.IgnoreUnknownValues,
	}
	for i, row := range in.Rows {
		if row == nil {
			return nil, bqerr.Invalid(fmt.Sprintf("row %d is not an object", i), "Pass every row as an object of column name to value.")
		}
		values := make(map[string]bq.JsonValue, len(row))
		for k, v := range row {
			values[k] = v
		}
		// An empty row is all NULLs, not an absent one.
		req.Rows[i] = &bq.TableDataInsertAllRequestRows{InsertId: s.newInsertID(), Json: values, ForceSendFields: []string{"Json"}}
	}
	// Measured as the client will send it (HTML characters escaped, which
	// can make the body larger than the arguments were).
	body, err := googleapi.WithoutDataWrapper.JSONBuffer(req)
	if err != nil {
		return nil, bqerr.Invalid("rows could not be encoded as JSON", "Pass plain JSON values: strings, numbers, booleans, null, arrays and objects.").WithCause(err)
	}
	if body.Len() > lim.MaxBytes {
		return nil, bqerr.Invalid(fmt.Sprintf("the insert request would be %s; the limit is %s", governance.FormatBytes(int64(body.Len())), governance.FormatBytes(int64(lim.MaxBytes))),
			"Split the rows into smaller calls.")
	}
	return req, nil
}
