package export

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// tableTarget is a checked table destination.
type tableTarget struct {
	project, dataset, name string
	overwrite              bool
}

// CopySpec is how a result is copied into the export dataset.
type CopySpec struct {
	// JobID is chosen before the first attempt, so a retry finds the same
	// copy job instead of starting another.
	JobID     string
	Location  string
	Labels    map[string]string
	Overwrite bool
	Expires   time.Time
}

// TableCopier copies a result table to dst, then sets dst's expiration,
// and returns dst's rows and bytes.
type TableCopier interface {
	Copy(ctx context.Context, src, dst *bigquery.Table, spec CopySpec) (rows, bytes int64, err error)
}

// tableTarget checks a table destination before anything runs: the
// operator named the dataset (--export-dataset) and the agent picks only
// the table's name. The dataset allowlist does not apply: the operator
// named this dataset for exports, so it is allowed implicitly as a copy
// target (which is also why a read-only server may export to it); reading
// it back is a query like any other, under the allowlist.
func (s *Service) tableTarget(in Input) (*tableTarget, error) {
	ds := strings.TrimSpace(s.cfg.Dataset)
	if ds == "" || s.cfg.Copier == nil {
		return nil, bqerr.Invalid("this server exports to no dataset",
			"Export to a file instead, or ask the user to start the server with --export-dataset.")
	}
	t := &tableTarget{project: s.cfg.Project, dataset: ds, name: strings.TrimSpace(in.Name), overwrite: in.Overwrite}
	if p, d, ok := strings.Cut(ds, "."); ok {
		t.project, t.dataset = p, d
	}
	if t.name != "" {
		if err := bqtype.ValidateTableID(t.name); err != nil {
			return nil, err
		}
		if strings.ContainsAny(t.name, "*$") {
			return nil, bqerr.Invalid("name must be a plain table ID, without a wildcard or decorator", "Give a table name such as orders_2024.")
		}
	}
	return t, nil
}

// toTable copies the result table into the export dataset with a copy
// job (no bytes scanned, nothing billed for the query again), which expires
// after TableTTL.
func (s *Service) toTable(ctx context.Context, t *tableTarget, res *query.ResultTable) (*Output, error) {
	if t.name == "" {
		t.name = "export_" + res.JobID
	}
	expires := time.Now().Add(s.cfg.TableTTL).UTC()
	// A fresh ID per export: a jobId exported twice must start two copies.
	spec := CopySpec{JobID: res.JobID + "_copy_" + randomSuffix(), Location: res.Location, Labels: governance.JobLabels(ctx), Overwrite: t.overwrite, Expires: expires}
	dst := &bigquery.Table{ProjectID: t.project, DatasetID: t.dataset, TableID: t.name}
	out := &Output{URI: "bigquery://" + t.project + "/" + t.dataset + "/" + t.name, Expires: expires.Format(time.RFC3339)}
	err := s.cfg.Executor.Do(ctx, resilience.Export, t.project, func(ctx context.Context) error {
		var err error
		out.Rows, out.Bytes, err = s.cfg.Copier.Copy(ctx, res.Table, dst, spec)
		return err
	})
	if err == nil {
		return out, nil
	}
	// WRITE_EMPTY fails the copy job when the table has rows.
	if e := bqerr.From(err); !t.overwrite && strings.Contains(strings.ToLower(e.Message), "already exists") {
		return nil, bqerr.Invalid(fmt.Sprintf("table %s.%s already exists", t.dataset, t.name), "Choose another name, or pass overwrite: true to replace it.").WithCause(err)
	}
	return nil, err
}

// ClientCopier copies with a client library client.
type ClientCopier struct {
	Client *bigquery.Client
}

// Copy runs a copy job (WRITE_EMPTY unless overwriting) under spec.JobID,
// waits for it (job.Run) and sets the destination's expiration.
func (c ClientCopier) Copy(ctx context.Context, src, dst *bigquery.Table, spec CopySpec) (int64, int64, error) {
	s := c.Client.DatasetInProject(src.ProjectID, src.DatasetID).Table(src.TableID)
	d := c.Client.DatasetInProject(dst.ProjectID, dst.DatasetID).Table(dst.TableID)
	cp := d.CopierFrom(s)
	cp.JobID, cp.Location, cp.Labels = spec.JobID, spec.Location, spec.Labels
	cp.WriteDisposition = bigquery.WriteEmpty
	if spec.Overwrite {
		cp.WriteDisposition = bigquery.WriteTruncate
	}
	if _, err := job.Run(ctx, c.Client, job.Ref{ID: spec.JobID, Location: spec.Location}, cp.Run); err != nil {
		return 0, 0, err
	}
	md, err := d.Update(ctx, bigquery.TableMetadataToUpdate{ExpirationTime: spec.Expires}, "")
	if err != nil {
		return 0, 0, err
	}
	return int64(md.NumRows), md.NumBytes, nil
}
