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
	mw = append([]Middleware{NotifyClient(), ReportProgress()}, mw...)
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
			Name:        "list_datasets",
			Title:       "List datasets",
			Description: `List a project's datasets (default: the server's project) with location and labels. Start here. Paged: pass nextPageToken back as pageToken.`,
			Annotations: readOnly("List datasets"),
		}, func(ctx context.Context, in schema.ListDatasetsInput) (*schema.ListDatasetsOutput, error) {
			return svc.Schema.ListDatasets(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:        "list_tables",
			Title:       "List tables",
			Description: `List a dataset's tables and views with type, partitioning and clustering; includeDetails adds row counts and sizes (one call per table). Paged like list_datasets.`,
			Annotations: readOnly("List tables"),
		}, func(ctx context.Context, in schema.ListTablesInput) (*schema.ListTablesOutput, error) {
			return svc.Schema.ListTables(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:        "get_table_schema",
			Title:       "Get table schema",
			Description: `A table's columns (GoogleSQL type, mode, nested fields), partitioning, clustering, size; a view's SQL. Read it before writing SQL. Large schemas are cut to a budget and say truncated: pick columns, maxDepth or format ddl to see more.`,
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
			Name:        "dry_run_sql",
			Title:       "Dry-run SQL",
			Description: `Check a query without running it (free): statement type, bytes and USD cost estimate, referenced tables, result schema, and whether execute_sql would accept it.`,
			Annotations: readOnly("Dry-run SQL"),
		}, func(ctx context.Context, in query.DryRunInput) (*query.DryRunOutput, error) {
			return svc.Query.DryRun(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:        "get_query_results",
			Title:       "Get query results",
			Description: `Read more rows of a finished query from startIndex (execute_sql's nextStartIndex) without running it again.`,
			Annotations: readOnly("Get query results"),
		}, func(ctx context.Context, in query.GetResultsInput) (*query.ExecuteOutput, error) {
			return svc.Query.GetResults(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:        "get_job",
			Title:       "Get job",
			Description: `A job's state (PENDING, RUNNING, DONE), error, bytes processed and billed, timing.`,
			Annotations: readOnly("Get job"),
		}, func(ctx context.Context, in query.JobInput) (*query.JobOutput, error) {
			return svc.Query.GetJob(ctx, in)
		}),
		newTool(&mcp.Tool{
			Name:        "health",
			Title:       "Server health",
			Description: `Server health: BigQuery reachability and latency, identity and token expiry, circuit breakers, cache, version. Use it when calls keep failing.`,
			Annotations: readOnly("Server health"),
		}, func(ctx context.Context, _ HealthInput) (*HealthReport, error) {
			return svc.Health.Health(ctx), nil
		}),
		newTool(&mcp.Tool{
			Name:        "cancel_job",
			Title:       "Cancel job",
			Description: `Ask BigQuery to cancel a running job (best effort: it may finish first); returns its state.`,
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
	mode := `Read-only: one SELECT (or WITH … SELECT) only.`
	if allowWrites {
		mode = `Writes allowed: DML, DDL and scripts run as given; check them with dry_run_sql first.`
	}
	return `Run GoogleSQL; returns schema, rows, totalRows, jobId, bytes billed. Rows are arrays in schema order (format objects: {column: value}); INT64 beyond 2^53 and NUMERIC as strings, TIMESTAMP RFC 3339, BYTES base64.
Pass values as typed parameters used as @name: {"name":"since","type":"DATE","value":"2024-01-01"}.
At most maxRows rows (default 100) and a byte cap; when truncated, get_query_results continues from nextStartIndex. Billing is capped (maxBytesBilled may lower it). To look at a table use preview_table (free). ` + mode
}

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }
