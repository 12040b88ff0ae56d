// Package export writes a query's whole result where the agent's context
// never sees it: a local file (JSON Lines, CSV or Parquet), a BigQuery
// table, or Cloud Storage objects that BigQuery writes itself (an extract
// job). The agent gets a link and counts; the rows go from BigQuery to the
// destination directly.
//
// The query runs through package query (RunToTable, ResultOf), so an
// export passes every check execute_sql's jobs pass (read-only guard,
// allowlist, budgets, confirmation, labels, location, job ownership) and
// adds none of its own beyond where it may write: files only under
// Config.Dir, tables only in Config.Dataset, objects only under
// Config.GCS. The result table is read
// through the Storage Read API (Arrow, several streams at once) when the
// reader has it, under resilience's export operation; JSON Lines uses
// package rows' value rules, so a value reads as execute_sql returns it.
package export

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// DefaultDir is where files go when Settings.Dir is empty: a folder in the
// working directory, so an export lands next to the user's project, not
// somewhere they must look for.
const DefaultDir = "bigquery-exports"

// DefaultTableTTL is how long an exported table lives when
// Settings.TableTTL is zero: long enough to hand over, short enough that
// forgotten exports do not pile up storage costs.
const DefaultTableTTL = 7 * 24 * time.Hour

// DefaultMaxBytes bounds one exported file when Settings.MaxExportBytes is zero:
// large enough for the results people hand over as files, small enough
// that a mistaken export does not fill a laptop's disk.
const DefaultMaxBytes = 10 << 30

// Queries is what export needs of package query: a query run to its result
// table under every check, or the result of a finished job the caller
// owns.
type Queries interface {
	RunToTable(ctx context.Context, in query.ExecuteInput, checkEstimate func(bytes int64) error) (*query.ResultTable, error)
	ResultOf(ctx context.Context, jobID, location string) (*query.ResultTable, error)
}

// Settings are what the flags set of export_results, each field named
// after its flag without the "export" the Settings stand for
// (--export-dir fills Dir of server.Config.Export), and filled once: the
// flags' defaults are the constants above, which NewService also gives
// zero fields.
type Settings struct {
	// Dir (--export-dir) is the only folder files are written in.
	Dir string
	// Dataset (--export-dataset) is the only dataset tables are written
	// in, project.dataset or dataset; empty: no table exports. The
	// dataset allowlist does not apply to it: nothing but exports is
	// written there, and the allowlist still decides what queries read.
	Dataset string
	// GCS (--export-gcs) is gs://bucket/prefix, the only place Cloud
	// Storage objects are written (see ParseGCS); empty: none.
	GCS string
	// TableTTL (--export-table-ttl) is each exported table's expiration.
	TableTTL time.Duration
	// MaxExportBytes (--max-export-bytes) bounds one file, and a Cloud
	// Storage export's result table; an export that would pass it fails
	// and leaves nothing. Zero: DefaultMaxBytes.
	MaxExportBytes int64
	// Destination is used when the agent names none: file (empty), or gcs
	// where local disk is the server's own (http with --export-gcs). Set
	// by the command, not a flag of its own.
	Destination string
	// StallTimeout bounds how long ClientReader's reads may go without a
	// row (read.go). No flag; zero: DefaultStallTimeout. Tests shorten it.
	StallTimeout time.Duration
}

// Config builds a Service: its Settings, and what it runs on.
type Config struct {
	Settings
	Queries Queries
	// Reader reads a result table whole.
	Reader TableReader
	// Copier copies a result table into the export dataset; nil: table
	// exports are refused.
	Copier TableCopier
	// Extractor extracts a result table to Cloud Storage; nil: Cloud
	// Storage exports are refused.
	Extractor TableExtractor
	// Executor runs reads, copies and extracts under resilience.Export.
	Executor *resilience.Executor
	// Project is the default project (of Dataset without one): the
	// connection's, which may come from the credentials.
	Project string
}

// Service exports results.
type Service struct {
	cfg Config
	// progressEvery is the least time between two progress reports while a
	// file is written (progress.go); tests shorten it.
	progressEvery time.Duration
}

// NewService returns a Service, its defaults filled in.
func NewService(cfg Config) *Service {
	cfg.Dir = cmp.Or(cfg.Dir, DefaultDir)
	if cfg.TableTTL <= 0 {
		cfg.TableTTL = DefaultTableTTL
	}
	if cfg.MaxExportBytes <= 0 {
		cfg.MaxExportBytes = DefaultMaxBytes
	}
	return &Service{cfg: cfg, progressEvery: progressEvery}
}

// Input is export_results' input.
type Input struct {
	SQL            string            `json:"sql,omitempty" jsonschema:"A SELECT to run and export (checked as execute_sql). Or jobId."`
	Parameters     []query.Parameter `json:"parameters,omitempty" jsonschema:"As execute_sql's."`
	DefaultDataset string            `json:"defaultDataset,omitempty"`
	JobID          string            `json:"jobId,omitempty" jsonschema:"A finished query of yours: export its result without rerunning."`
	Location       string            `json:"location,omitempty"`
	Destination    string            `json:"destination,omitempty" jsonschema:"file (default; over http on the server's disk), table, or gcs (Cloud Storage; the default over http when the server has a bucket)."`
	Format         string            `json:"format,omitempty" jsonschema:"jsonl (default), csv or parquet."`
	Name           string            `json:"name,omitempty" jsonschema:"File, table or gcs folder name (a/b allowed for gcs); default from the job ID."`
	Overwrite      bool              `json:"overwrite,omitempty" jsonschema:"Replace an existing file or table."`
}

// Output is export_results' result: where the rows went and how many,
// never the rows.
type Output struct {
	// URI is a file:// URI, bigquery://project/dataset/table, or the
	// gs://bucket/prefix/name/ folder of a Cloud Storage export.
	URI         string   `json:"uri"`
	Destination string   `json:"destination"`
	Format      string   `json:"format,omitempty"`
	Rows        int64    `json:"rows"`
	Bytes       int64    `json:"bytes"`
	Columns     []string `json:"columns"`
	DurationMs  int64    `json:"durationMs"`
	JobID       string   `json:"jobId"`
	Location    string   `json:"location,omitempty"`
	// ReadAPI says how a file's rows were read: "storage" (the Storage
	// Read API) or "tabledata" (tabledata.list pages).
	ReadAPI     string `json:"readApi,omitempty"`
	BytesBilled int64  `json:"bytesBilled"`
	// CostUSD is what the query job cost at Price (absent while unknown),
	// as in execute_sql's answer.
	CostUSD *float64    `json:"costUSD,omitempty" jsonschema:"What the query job cost at price: bytesBilled on demand, its slot time under editions billing."`
	Price   *cost.Price `json:"price,omitempty" jsonschema:"The price costUSD was computed at: billing, location, perTiBUSD or slotHourUSD, and its source."`
	// Expires is when an exported table is deleted.
	Expires string `json:"expires,omitempty"`
	// Objects are the gs:// objects BigQuery wrote (the first
	// maxListedObjects), ObjectCount how many there are.
	Objects     []string `json:"objects,omitempty"`
	ObjectCount int64    `json:"objectCount,omitempty"`
}

// Destinations.
const (
	toFile  = "file"
	toTable = "table"
	toGCS   = "gcs"
)

// Export runs or finds the query, then writes its result to the
// destination. Everything about the destination is checked before the
// query runs, so a bad name costs no job.
func (s *Service) Export(ctx context.Context, in Input) (*Output, error) {
	start := time.Now()
	dest := strings.ToLower(cmp.Or(strings.TrimSpace(in.Destination), s.cfg.Destination, toFile))
	var target any
	var err error
	switch dest {
	case toFile:
		target, err = s.fileTarget(in)
	case toTable:
		target, err = s.tableTarget(in)
	case toGCS:
		target, err = s.gcsTarget(in)
	default:
		err = bqerr.Invalid("destination must be file, table or gcs", "Leave destination out for the server's default ("+cmp.Or(s.cfg.Destination, toFile)+").")
	}
	if err != nil {
		return nil, err
	}
	res, err := s.result(ctx, in)
	if err != nil {
		return nil, err
	}
	var out *Output
	switch t := target.(type) {
	case *fileTarget:
		out, err = s.toFile(ctx, t, res)
	case *tableTarget:
		out, err = s.toTable(ctx, t, res)
	case *gcsTarget:
		out, err = s.toGCS(ctx, t, res)
	}
	if err != nil {
		return nil, bqerr.From(err).WithJobID(res.JobID)
	}
	out.Destination, out.JobID, out.Location, out.BytesBilled = dest, res.JobID, res.Location, res.BytesBilled
	out.CostUSD, out.Price = res.CostUSD, res.Price
	out.DurationMs = time.Since(start).Milliseconds()
	return out, nil
}

// result runs in.SQL or finds in.JobID's result: exactly one of them.
func (s *Service) result(ctx context.Context, in Input) (*query.ResultTable, error) {
	sql, job := strings.TrimSpace(in.SQL), strings.TrimSpace(in.JobID)
	switch {
	case sql != "" && job != "":
		return nil, bqerr.Invalid("pass sql or jobId, not both", "jobId exports a finished query's result without running it again.")
	case job != "":
		return s.cfg.Queries.ResultOf(ctx, job, in.Location)
	case sql != "":
		return s.cfg.Queries.RunToTable(ctx, query.ExecuteInput{SQL: sql, Parameters: in.Parameters, DefaultDataset: in.DefaultDataset},
			estimateCap(sql, s.cfg.MaxExportBytes))
	}
	return nil, bqerr.Invalid("sql or jobId is required", "Pass the SELECT to export in sql, or the jobId of a query you ran with execute_sql.")
}

// columns names a schema's top-level columns.
func columns(schema bigquery.Schema) []string {
	out := make([]string, len(schema))
	for i, f := range schema {
		out[i] = f.Name
	}
	return out
}

// WholeResultHint is the hint that leads from a cut result (execute_sql,
// get_query_results) to all of its rows: export_results with the result's
// job, which writes every row outside the conversation without running the
// query again. The wiring hands it to package query when export_results is
// listed.
func WholeResultHint(jobID, location string) string {
	job := fmt.Sprintf("jobId %q", jobID)
	if location != "" {
		job += fmt.Sprintf(" and location %q", location)
	}
	return "The whole result: export_results with " + job + " writes every row outside the conversation, without running the query again."
}
