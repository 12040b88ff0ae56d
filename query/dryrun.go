package query

import (
	"context"
	"fmt"
	"strings"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// dryRun asks BigQuery to validate and plan the query without running it.
// A dry run creates no job, but it carries the call's labels like every
// job request, and runs where the job would. BigQuery names the location
// it planned the query for, which becomes r's location when none was set.
func (s *Service) dryRun(ctx context.Context, r *request) (*bigquery.QueryStatistics, error) {
	q := s.newQuery(r)
	q.DryRun = true
	q.Location = s.jobLocation(ctx, r)
	q.Labels = governance.JobLabels(ctx)
	var job *bigquery.Job
	err := s.exec.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		var err error
		job, err = q.Run(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	if loc := job.Location(); loc != "" {
		r.location = loc
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
	BytesProcessed   int64   `json:"bytesProcessed"`
	EstimatedCostUSD float64 `json:"estimatedCostUSD"`
	PricePerTiBUSD   float64 `json:"pricePerTiBUSD"`
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
}

// DryRun validates a query and estimates its cost without running it.
func (s *Service) DryRun(ctx context.Context, in DryRunInput) (*DryRunOutput, error) {
	r, err := s.validate(ExecuteInput{SQL: in.SQL, Parameters: in.Parameters, DefaultDataset: in.DefaultDataset})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if s.cfg.Datasets.Enabled() {
		// Even a dry run shows another dataset's schema and size.
		toks, _ := lexSQL(r.sql)
		if err := s.checkNamesBeforeDryRun(r, readNames(toks)); err != nil {
			return nil, err
		}
	}
	qs, err := s.dryRun(ctx, r)
	if err != nil {
		return nil, s.fail(ctx, err, r, "", "")
	}
	if s.cfg.Datasets.Enabled() {
		if err := s.checkDatasets(ctx, r, qs); err != nil {
			return nil, bqerr.From(err).WithQuery(r.sql)
		}
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
		Location:         r.location,
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
	if err := s.cfg.Budget.Check(auth.CallerFrom(ctx).Principal, qs.TotalBytesProcessed); err != nil {
		out.WouldExecute = false
		out.Note = strings.TrimSpace(out.Note + " " + bqerr.From(err).Message + ".")
	}
	if c := s.cfg.ConfirmAboveBytes; c > 0 && qs.TotalBytesProcessed > c {
		out.Note = strings.TrimSpace(out.Note + " execute_sql will ask the user to confirm it first (above " + governance.FormatBytes(c) + ").")
	}
	if kept, omitted, nested := cutSchema(out.Schema, maxDryRunSchemaBytes); omitted > 0 || nested {
		out.Schema, out.SchemaTruncated = kept, true
		out.Note = strings.TrimSpace(out.Note + " " + schemaCutNote(len(kept), omitted, nested))
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
