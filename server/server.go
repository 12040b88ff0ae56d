// Package server wires the BigQuery services into an MCP server: it defines
// the tools, their annotations and schemas, the middleware every call
// passes through, the one place where an error becomes an isError result
// (mcpHandler), and Build, which makes every service from one Config and
// fills each package's hooks with telemetry and client notifications.
//
// It is the only package that knows MCP's tools and sessions and the
// BigQuery services together, so that the services stay testable without a
// client and the protocol can change without touching them.
package server

import (
	"context"
	"log/slog"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/export"
	"github.com/bigquery-mcp/bigquery-mcp/insert"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
	"github.com/bigquery-mcp/bigquery-mcp/semantic"
)

// Services are the backends the tools call.
type Services struct {
	Schema *schema.Service
	Query  *query.Service
	Insert *insert.Service
	Export *export.Service
	Health HealthReporter
	// Semantic is the loaded semantic manifest (--semantic-manifest);
	// nil: no semantic toolset.
	Semantic *semantic.Manifest
}

// New returns an MCP server exposing the BigQuery tools, as cfg's
// toolsets, --read-only, --allow-writes, --apps and argument defaults
// (--default-max-rows, --max-wait) say. It connects to nothing: Build
// makes the services and calls it.
func New(svc Services, cfg Config) *mcp.Server {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tools := selectTools(catalog(svc, cfg.AllowWrites, svc.Semantic != nil), withSemantic(cfg.Toolsets, svc.Semantic != nil), cfg.ReadOnly, cfg.AllowWrites)
	defaults := argumentDefaults{maxRows: cfg.DefaultMaxRows, maxWait: cfg.MaxWait}
	for _, t := range tools {
		t.describe()
		defaults.apply(t.tool)
		t.freeze()
	}
	caps := capabilities(served{tools: len(tools) > 0, resources: svc.Schema != nil || cfg.Apps != AppsOff,
		completions: svc.Schema != nil, apps: cfg.Apps}) // capabilities.go
	s := mcp.NewServer(&mcp.Implementation{Name: "bigquery-mcp", Title: "BigQuery", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructionsFor(tools), Logger: sdkLogger(log), CompletionHandler: completeNames(svc.Schema), Capabilities: caps})
	addSchemaResources(s, svc.Schema)
	addApp(s, cfg.Apps) // apps.go
	mw := cfg.Middleware
	if mw == nil {
		mw = []Middleware{Recover(log), LogCalls(log)}
	}
	// Outermost, so the client hears of every failure, panics included.
	mw = append([]Middleware{NotifyClient(), ReportProgress()}, mw...)
	// Innermost, so the others see a client that cannot confirm as the
	// RESOURCE_EXHAUSTED error it gets.
	mw = append(mw, Confirm(cfg.Stateless))
	for _, t := range tools {
		s.AddTool(t.tool, mcpHandler(chain(t.tool.Name, t.handler, mw)))
	}
	// Added last, so it is outermost: no panic in any method handler, or in
	// other receiving middleware, escapes.
	s.AddReceivingMiddleware(serveDeclared(caps))
	s.AddReceivingMiddleware(ProtocolErrors())
	s.AddReceivingMiddleware(RecoverMethods(log))
	return s
}

// catalog is every tool definition with its toolset, without the input
// schemas, which cost most of building a tool: New describes only the
// tools selectTools keeps, and listsExport none. Services may be nil when
// only the definitions are needed (documentation, schema snapshots). The
// semantic toolset is built only when asked for (a manifest configured,
// or the documentation), so a server without one builds nothing of it.
func catalog(svc Services, allowWrites, semantic bool) []listedTool {
	tools := metadataTools(svc)
	tools = append(tools, runTools(svc, allowWrites)...)
	if semantic {
		tools = append(tools, semanticTools(svc)...)
	}
	return append(tools, writingTools(svc)...)
}

// metadataTools are schema's tools: free, cached, read-only.
func metadataTools(svc Services) []listedTool {
	return []listedTool{
		{ToolsetSchema, newTool(&mcp.Tool{
			Name:        "list_datasets",
			Description: `A project's datasets with location and labels. Start here. Paged.`,
			Annotations: readOnly("List datasets"),
		}, func(ctx context.Context, in schema.ListDatasetsInput) (*schema.ListDatasetsOutput, error) {
			return svc.Schema.ListDatasets(ctx, in)
		})},
		{ToolsetSchema, newTool(&mcp.Tool{
			Name:        "list_tables",
			Description: `A dataset's tables and views with type, partitioning, clustering. Paged.`,
			Annotations: readOnly("List tables"),
		}, func(ctx context.Context, in schema.ListTablesInput) (*schema.ListTablesOutput, error) {
			return svc.Schema.ListTables(ctx, in)
		})},
		{ToolsetSchema, newTool(&mcp.Tool{
			Name:        "get_table_schema",
			Description: `Columns (mode omitted: NULLABLE), declared keys to join on, partitioning, clustering, size; view SQL. Read before writing SQL. Cut to 6 KB with a hint.`,
			Annotations: readOnly("Get table schema"),
		}, func(ctx context.Context, in schema.GetTableSchemaInput) (*schema.TableSchema, error) {
			return svc.Schema.GetTableSchema(ctx, in)
		})},
		{ToolsetSchema, newTool(&mcp.Tool{
			Name:        "search_columns",
			Description: `Find columns by name or description across datasets. information_schema bills 10 MB per dataset; metadata is free; auto tries both.`,
			Annotations: readOnly("Search columns"),
		}, func(ctx context.Context, in schema.SearchInput) (*schema.SearchOutput, error) {
			return svc.Schema.SearchColumns(ctx, in)
		})},
		{ToolsetSchema, newTool(&mcp.Tool{
			Name:        "preview_table",
			Description: `A table's rows via tabledata.list: free, unlike SELECT * LIMIT. Caps and formats as execute_sql.`,
			Annotations: readOnly("Preview table"),
		}, func(ctx context.Context, in schema.PreviewInput) (*schema.PreviewOutput, error) {
			return svc.Schema.Preview(ctx, in)
		})},
	}
}

// runTools run and read jobs (execute_sql writes only with
// --allow-writes), and report the caller's usage and the server's health.
func runTools(svc Services, allowWrites bool) []listedTool {
	return []listedTool{
		{ToolsetQuery, newTool(&mcp.Tool{
			Name:        "execute_sql",
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
		})},
		{ToolsetQuery, newTool(&mcp.Tool{
			Name:        "dry_run_sql",
			Description: `Free check: bytes, USD, result schema, whether execute_sql accepts it, advice to read less.`,
			Annotations: readOnly("Dry-run SQL"),
		}, func(ctx context.Context, in query.DryRunInput) (*query.DryRunOutput, error) {
			return svc.Query.DryRun(ctx, in)
		})},
		{ToolsetQuery, newTool(&mcp.Tool{
			Name:        "get_query_results",
			Description: `More rows from startIndex of a query you ran here; no rerun.`,
			Annotations: readOnly("Get query results"),
		}, func(ctx context.Context, in query.GetResultsInput) (*query.ExecuteOutput, error) {
			return svc.Query.GetResults(ctx, in)
		})},
		{ToolsetJobs, newTool(&mcp.Tool{
			Name:        "get_job",
			Description: `State, error, bytes billed, timing of a job you ran here.`,
			Annotations: readOnly("Get job"),
		}, func(ctx context.Context, in query.JobInput) (*query.JobOutput, error) {
			return svc.Query.GetJob(ctx, in)
		})},
		{alwaysOn, newTool(&mcp.Tool{
			Name:        "usage",
			Description: `Your jobs, bytes billed/held, USD, budgets left.`,
			Annotations: readOnly("Usage"),
		}, func(ctx context.Context, in query.UsageInput) (*query.UsageOutput, error) {
			return svc.Query.Usage(ctx, in)
		})},
		{alwaysOn, newTool(&mcp.Tool{
			Name:        "health",
			Description: `BigQuery latency, identity, breakers, cache. Use when calls keep failing.`,
			Annotations: readOnly("Server health"),
		}, func(ctx context.Context, _ HealthInput) (*HealthReport, error) {
			return svc.Health.Health(ctx), nil
		})},
	}
}

// writingTools are annotated as writing whatever the flags say, so
// --read-only hides them.
func writingTools(svc Services) []listedTool {
	return []listedTool{
		{ToolsetJobs, newTool(&mcp.Tool{
			Name:        "cancel_job",
			Description: `Cancel a job you ran here (best effort).`,
			Annotations: &mcp.ToolAnnotations{
				Title:           "Cancel job",
				ReadOnlyHint:    false,
				DestructiveHint: ptr(false),
				IdempotentHint:  true,
				OpenWorldHint:   ptr(false),
			},
		}, func(ctx context.Context, in query.JobInput) (*query.JobOutput, error) {
			return svc.Query.CancelJob(ctx, in)
		})},
		{ToolsetWrite, newTool(&mcp.Tool{
			Name:        "insert_rows",
			Description: `Append rows to a table (streaming insert, at most 500). Rows BigQuery refuses come back by index.`,
			Annotations: &mcp.ToolAnnotations{
				Title:        "Insert rows",
				ReadOnlyHint: false,
				// Appends only: nothing already there is changed.
				DestructiveHint: ptr(false),
				// Each call adds its rows again; only a call's own retries
				// are deduplicated (insertIds).
				IdempotentHint: false,
				OpenWorldHint:  ptr(false),
			},
		}, func(ctx context.Context, in insert.Input) (*insert.Output, error) {
			return svc.Insert.Insert(ctx, in)
		})},
		{ToolsetExport, exportTool(svc)},
	}
}

// listsExport reports whether New lists export_results for these
// settings, by the same selection, so that a cut result's hint
// (query.Config.WholeResult, wholeResult) names it exactly when the agent
// can call it.
func listsExport(sets []Toolset, readOnly, allowWrites bool) bool {
	return slices.ContainsFunc(selectTools(catalog(Services{}, allowWrites, false), sets, readOnly, allowWrites),
		func(t listedTool) bool { return t.tool.Name == "export_results" })
}

// wholeResult is the hint a cut result gets: export's, when export_results
// is listed for cfg; none otherwise.
func wholeResult(cfg Config) func(jobID, location string) string {
	if !listsExport(cfg.Toolsets, cfg.ReadOnly, cfg.AllowWrites) {
		return nil
	}
	return export.WholeResultHint
}

func executeDescription(allowWrites bool) string {
	mode := `Read-only: one SELECT (or WITH … SELECT) only.`
	if allowWrites {
		mode = `Writes allowed: DML, DDL, scripts run as given.`
	}
	return `Run GoogleSQL. Rows are arrays in schema order (format objects for maps); big INT64/NUMERIC are strings. Parameters: {"name":"d","type":"DATE","value":"2024-01-01"} used as @d. Capped by maxRows and bytes; if truncated, get_query_results from nextStartIndex. Dry-run costly SQL; follow its advice. ` + mode
}

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }
