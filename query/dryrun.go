package query

import (
	"context"
	"strings"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/rows"
)

// dryRunResult is what a dry run says of a statement: the client's
// statistics (statement type, bytes, tables read, schema) and every other
// object the dataset allowlist must see, which only the REST response has.
type dryRunResult struct {
	*bigquery.QueryStatistics
	// objects are the routines the statement calls and the objects its
	// DDL or DCL creates, changes, drops or grants on.
	objects []plannedObject
}

// plannedObject is one object a dry run names besides the tables read.
type plannedObject struct {
	// role says what the statement does with it: "calls routine",
	// "targets table", …
	role string
	ref  tableRef
}

// dryRun asks BigQuery to validate and plan the query without running it.
// A dry run creates no job, but it carries the call's labels like every
// job request, and runs where the job would. BigQuery names the location
// it planned the query for, which becomes r's location when none was set.
// It goes through the REST service: the client's statistics leave out the
// routines referenced and most DDL and DCL targets.
func (s *Service) dryRun(ctx context.Context, r *request) (*dryRunResult, error) {
	spec, err := r.querySpec()
	if err != nil {
		return nil, err
	}
	got, err := s.jobs.DryRun(ctx, job.QueryConfig(spec), s.jobLocation(ctx, r))
	if err != nil {
		return nil, err
	}
	if ref := got.JobReference; ref != nil && ref.Location != "" {
		r.location = ref.Location
	}
	if st := got.Status; st != nil && st.ErrorResult != nil {
		e := st.ErrorResult
		return nil, &bigquery.Error{Location: e.Location, Message: e.Message, Reason: e.Reason}
	}
	return planOf(got.Statistics)
}

// planOf reads a dry run's statistics.
func planOf(js *bq.JobStatistics) (*dryRunResult, error) {
	out := &dryRunResult{QueryStatistics: &bigquery.QueryStatistics{}}
	if js == nil {
		return out, nil
	}
	out.TotalBytesProcessed = js.TotalBytesProcessed
	qs := js.Query
	if qs == nil {
		return out, nil
	}
	out.StatementType = qs.StatementType
	if qs.TotalBytesProcessed > 0 {
		out.TotalBytesProcessed = qs.TotalBytesProcessed
	}
	if qs.Schema != nil {
		schema, err := rows.SchemaFromREST(qs.Schema)
		if err != nil {
			return nil, err
		}
		out.Schema = schema
	}
	for _, t := range qs.ReferencedTables {
		out.ReferencedTables = append(out.ReferencedTables, &bigquery.Table{ProjectID: t.ProjectId, DatasetID: t.DatasetId, TableID: t.TableId})
	}
	table := func(role string, t *bq.TableReference) {
		if t != nil {
			out.objects = append(out.objects, plannedObject{role, tableRef{t.ProjectId, t.DatasetId, t.TableId}})
		}
	}
	dataset := func(role string, d *bq.DatasetReference) {
		if d != nil {
			out.objects = append(out.objects, plannedObject{role, tableRef{project: d.ProjectId, dataset: d.DatasetId}})
		}
	}
	routine := func(role string, r *bq.RoutineReference) {
		if r != nil {
			out.objects = append(out.objects, plannedObject{role, tableRef{r.ProjectId, r.DatasetId, r.RoutineId}})
		}
	}
	for _, r := range qs.ReferencedRoutines {
		routine("calls routine", r)
	}
	routine("targets routine", qs.DdlTargetRoutine)
	table("targets table", qs.DdlTargetTable)
	table("writes table", qs.DdlDestinationTable)
	dataset("targets dataset", qs.DdlTargetDataset)
	if p := qs.DdlTargetRowAccessPolicy; p != nil {
		table("targets a row access policy on table", &bq.TableReference{ProjectId: p.ProjectId, DatasetId: p.DatasetId, TableId: p.TableId})
	}
	dataset("grants on dataset", qs.DclTargetDataset)
	table("grants on table", qs.DclTargetTable)
	table("grants on view", qs.DclTargetView)
	return out, nil
}

// DryRunInput is dry_run_sql's input.
type DryRunInput struct {
	SQL            string      `json:"sql" jsonschema:"GoogleSQL."`
	Parameters     []Parameter `json:"parameters,omitempty" jsonschema:"Typed query parameters."`
	DefaultDataset string      `json:"defaultDataset,omitempty" jsonschema:"For unqualified table names."`
}

// DryRunOutput is dry_run_sql's result.
type DryRunOutput struct {
	Valid         bool   `json:"valid"`
	StatementType string `json:"statementType"`
	// BytesProcessed is what the query would read; on-demand billing charges
	// for it (with a 10 MB minimum per table referenced).
	BytesProcessed int64 `json:"bytesProcessed"`
	// EstimatedCostUSD is BytesProcessed at Price, the price of the
	// location BigQuery planned the query for. Under editions billing it
	// is 0, as is PricePerTiBUSD: the cost is known only after the run,
	// and Note says so.
	EstimatedCostUSD float64    `json:"estimatedCostUSD" jsonschema:"On-demand estimate at price. 0 under editions billing: then the cost is known only after the run."`
	PricePerTiBUSD   float64    `json:"pricePerTiBUSD"`
	Price            cost.Price `json:"price" jsonschema:"The price used: billing (on-demand or editions), location, perTiBUSD or slotHourUSD, and source: the server's price table and its date, or the flag that set it."`
	// ReferencedTables are project.dataset.table names, when BigQuery reports them.
	ReferencedTables []string        `json:"referencedTables"`
	Schema           []bqtype.Column `json:"schema"`
	// SchemaTruncated says Schema was cut to stay small (Note says how).
	SchemaTruncated bool `json:"schemaTruncated,omitempty"`
	// WouldExecute says whether execute_sql on this server would run it.
	WouldExecute bool `json:"wouldExecute"`
	// Location is where the query would run, when known.
	Location string `json:"location,omitempty"`
	Note     string `json:"note,omitempty"`
	// Advice lists changes that would make the query cheaper and what
	// each would read, with figures from BigQuery (advice.go).
	Advice []Advice `json:"advice,omitempty" jsonschema:"Changes that would read less: partition filters with what each reads (readsBytes), clustering columns; method says where figures come from."`
}

// DryRun validates a query and estimates its cost without running it.
func (s *Service) DryRun(ctx context.Context, in DryRunInput) (*DryRunOutput, error) {
	r, err := s.validate(ExecuteInput{SQL: in.SQL, Parameters: in.Parameters, DefaultDataset: in.DefaultDataset})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	// The rules that refuse a dry run too (the allowlist: even a dry run
	// shows another dataset's schema and size, and its errors whether an
	// object exists) first by the text; the rest after the dry run.
	for _, c := range s.rules {
		if c.refusesDryRun && c.text != nil {
			if err := c.text(ctx, r, predicting); err != nil {
				return nil, err
			}
		}
	}
	qs, err := s.dryRun(ctx, r)
	if err != nil {
		return nil, s.fail(ctx, err, r, job.Ref{})
	}
	would, notes, err := s.predict(ctx, r, qs)
	if err != nil {
		return nil, err
	}
	// Priced where BigQuery planned the query: the dry run names it.
	price := s.price(r.location)
	out := &DryRunOutput{
		Valid:            true,
		StatementType:    qs.StatementType,
		BytesProcessed:   qs.TotalBytesProcessed,
		PricePerTiBUSD:   price.PerTiBUSD,
		Price:            price,
		ReferencedTables: []string{},
		Schema:           bqtype.Columns(qs.Schema),
		Location:         r.location,
	}
	if usd, ok := price.FromBytes(qs.TotalBytesProcessed); ok {
		out.EstimatedCostUSD = usd
	} else {
		out.Note = editionsNote(price)
	}
	for _, t := range qs.ReferencedTables {
		out.ReferencedTables = append(out.ReferencedTables, t.ProjectID+"."+t.DatasetID+"."+t.TableID)
	}
	// What execute_sql would do with it: the same checks (checks.go).
	out.WouldExecute = would
	out.Note = strings.TrimSpace(out.Note + " " + strings.Join(notes, " "))
	out.Advice = s.advise(ctx, r, qs)
	if kept, omitted, nested := cutSchema(out.Schema, maxDryRunSchemaBytes); omitted > 0 || nested {
		out.Schema, out.SchemaTruncated = kept, true
		out.Note = strings.TrimSpace(out.Note + " " + schemaCutNote(len(kept), omitted, nested))
	}
	return out, nil
}
