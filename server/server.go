// Package server wires the BigQuery services into an MCP server: it defines
// the tools, their annotations and the middleware every call passes
// through. It is the only package that knows both MCP and BigQuery.
package server

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

// Options configures the MCP server.
type Options struct {
	// Version is reported to clients in the initialize handshake.
	Version string
	// AllowWrites marks execute_sql as able to modify data.
	AllowWrites bool
	// Logger receives server logs (stderr, JSON).
	Logger *slog.Logger
	// Middleware runs around every tool call, first listed outermost,
	// inside NotifyClient. Nil means Recover and LogCalls.
	Middleware []Middleware
}

// Services are the backends the tools call.
type Services struct {
	Schema *schema.Service
	Query  *query.Service
	Health HealthReporter
}

const instructions = `BigQuery tools. Explore first: list_datasets, then list_tables, then get_table_schema for the exact column names and types. Check cost with dry_run_sql before running a large query with execute_sql. Pass values as typed @name parameters instead of pasting them into SQL. Errors come back as JSON with a stable code, whether a retry can help, and a hint for what to do next.`

// New returns an MCP server exposing the BigQuery tools.
func New(svc Services, opts Options) *mcp.Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "bigquery-mcp", Title: "BigQuery", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: log})
	mw := opts.Middleware
	if mw == nil {
		mw = []Middleware{Recover(log), LogCalls(log)}
	}
	// Outermost, so the client hears of every failure, panics included.
	mw = append([]Middleware{NotifyClient()}, mw...)
	for _, t := range Tools(svc, opts.AllowWrites) {
		s.AddTool(t.tool, mcpHandler(chain(t.tool.Name, t.handler, mw)))
	}
	// Added last, so it is outermost: no panic in any method handler, or in
	// other receiving middleware, escapes.
	s.AddReceivingMiddleware(RecoverMethods(log))
	return s
}

// Tools returns the tool definitions. Services may be nil when only the
// definitions are needed (documentation, schema snapshots).
func Tools(svc Services, allowWrites bool) []toolSpec {
	return []toolSpec{
		newTool(&mcp.Tool{
			Name:  "list_datasets",
			Title: "List datasets",
			Description: `List the datasets in a BigQuery project (the server's project by default), with their location and labels.
Use it first to discover what data exists. Results are paged: pass nextPageToken back as pageToken for more.`,
			Annotations: readOnly("List datasets"),
		}, func(ctx context.Context, in schema.ListDatasetsInput) (*schema.ListDatasetsOutput, error) {
			return svc.Schema.ListDatasets(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:  "list_tables",
			Title: "List tables",
			Description: `List the tables, views and materialized views in a dataset, with each one's type, partitioning and clustering.
Set includeDetails to also get row counts and sizes (one extra call per table). Paged like list_datasets.`,
			Annotations: readOnly("List tables"),
		}, func(ctx context.Context, in schema.ListTablesInput) (*schema.ListTablesOutput, error) {
			return svc.Schema.ListTables(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:  "get_table_schema",
			Title: "Get table schema",
			Description: `Get a table's columns (name, GoogleSQL type, mode, description, nested STRUCT/ARRAY fields), partitioning, clustering, row count, size, location and type; for views, the view's SQL.
Accepts dataset.table or project.dataset.table, with or without backticks. Read it before writing SQL so column names and types are exact.`,
			Annotations: readOnly("Get table schema"),
		}, func(ctx context.Context, in schema.GetTableSchemaInput) (*schema.TableSchema, error) {
			return svc.Schema.GetTableSchema(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:        "execute_sql",
			Title:       "Execute SQL",
			Description: executeDescription(allowWrites),
			Annotations: &mcp.ToolAnnotations{
				Title:           "Execute SQL",
				ReadOnlyHint:    !allowWrites,
				DestructiveHint: ptr(allowWrites),
				IdempotentHint:  !allowWrites,
				OpenWorldHint:   ptr(false),
			},
		}, func(ctx context.Context, in query.ExecuteInput) (*query.ExecuteOutput, error) {
			return svc.Query.Execute(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:  "dry_run_sql",
			Title: "Dry-run SQL",
			Description: `Validate a query and estimate its cost without running it: statement type, bytes it would process, estimated on-demand cost in USD, referenced tables (where BigQuery reports them), the result schema, and whether execute_sql on this server would accept it.
Free: dry runs are not billed. Use it to check SQL and cost before execute_sql.`,
			Annotations: readOnly("Dry-run SQL"),
		}, func(ctx context.Context, in query.DryRunInput) (*query.DryRunOutput, error) {
			return svc.Query.DryRun(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:  "get_query_results",
			Title: "Get query results",
			Description: `Read more rows of a finished query, from startIndex (execute_sql's nextStartIndex) on.
Use it to page through a truncated result without running the query again.`,
			Annotations: readOnly("Get query results"),
		}, func(ctx context.Context, in query.GetResultsInput) (*query.ExecuteOutput, error) {
			return svc.Query.GetResults(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:        "get_job",
			Title:       "Get job",
			Description: `Report a BigQuery job's state (PENDING, RUNNING, DONE), its error if it failed, bytes processed and billed, and timing.`,
			Annotations: readOnly("Get job"),
		}, func(ctx context.Context, in query.JobInput) (*query.JobOutput, error) {
			return svc.Query.GetJob(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:  "health",
			Title: "Server health",
			Description: `Report the server's health: whether BigQuery answers (with latency), which identity the server uses and when its token expires (never the token), the circuit breaker state per project, metadata cache size and hit rate, version and uptime.
Use it when calls keep failing, to tell a BigQuery outage from a credentials or configuration problem.`,
			Annotations: readOnly("Server health"),
		}, func(ctx context.Context, _ HealthInput) (*HealthReport, error) {
			return svc.Health.Health(ctx), nil
		}),
		newTool(&mcp.Tool{
			Name:        "cancel_job",
			Title:       "Cancel job",
			Description: `Ask BigQuery to cancel a running job, e.g. one that is taking too long or was started by mistake. Best effort: a job may finish before the cancel lands. Returns the job's state afterwards.`,
			Annotations: &mcp.ToolAnnotations{
				Title:           "Cancel job",
				ReadOnlyHint:    false,
				DestructiveHint: ptr(false),
				IdempotentHint:  true,
				OpenWorldHint:   ptr(false),
			},
		}, func(ctx context.Context, in query.JobInput) (*query.JobOutput, error) {
			return svc.Query.CancelJob(ctx, in)
		}),
	}
}

func executeDescription(allowWrites bool) string {
	mode := `Read-only: only a single SELECT (or WITH … SELECT) is accepted; anything else is refused before a job starts.`
	if allowWrites {
		mode = `This server allows writes: DML, DDL and scripts run as given. Check statements with dry_run_sql first.`
	}
	return `Run a GoogleSQL query and return its rows as JSON objects, with the column schema, total rows, job ID, bytes processed/billed and cache hit.
Values keep BigQuery's meaning: INT64 beyond 2^53 and NUMERIC/BIGNUMERIC as strings, TIMESTAMP as RFC 3339, BYTES as base64, STRUCT as objects, ARRAY as arrays.
Pass values as typed named parameters (@name in the SQL), e.g. {"name":"since","type":"DATE","value":"2024-01-01"} or {"name":"ids","type":"ARRAY<INT64>","value":[1,2]}.
Returns at most maxRows rows (default 100) and a bounded payload; when cut, truncated is true, totalRows tells how many exist, and get_query_results continues from nextStartIndex.
Every job is capped by the server's maximumBytesBilled; you may ask for less with maxBytesBilled. ` + mode
}

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }
