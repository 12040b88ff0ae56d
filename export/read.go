package export

import (
	"context"
	"errors"
	"iter"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/iterator"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// TableReader reads a table whole.
type TableReader interface {
	Read(ctx context.Context, table *bigquery.Table) (*RowStream, error)
}

// RowStream is a table's rows as they arrive.
type RowStream struct {
	// Rows yields each row once; an error ends it.
	Rows iter.Seq2[[]bigquery.Value, error]
	// API is how the rows are read: "storage" or "tabledata".
	API    string
	schema func() bigquery.Schema
	// total is the table's row count, 0 when not known.
	total func() uint64
}

// TotalRows is the table's row count, 0 when the reader does not know it.
func (r *RowStream) TotalRows() uint64 {
	if r.total == nil {
		return 0
	}
	return r.total()
}

// NewRowStream makes a RowStream; schema is asked after the first row
// (some readers know it only then).
func NewRowStream(schema func() bigquery.Schema, api string, rows iter.Seq2[[]bigquery.Value, error]) *RowStream {
	return &RowStream{Rows: rows, API: api, schema: schema}
}

// Schema is the table's schema.
func (r *RowStream) Schema() bigquery.Schema { return r.schema() }

// ClientReader reads with a client library client. When the client has
// the Storage Read API enabled (bigquery.Client.EnableStorageReadClient),
// a table is read as Arrow in several streams at once, decoded to the same
// values tabledata.list gives; otherwise, or when the read session cannot
// be made, through tabledata.list pages. RowStream.API says which.
type ClientReader struct {
	Client *bigquery.Client
}

// Read starts reading table, bound to r.Client (the table may come from
// another client, whose job found it).
func (r ClientReader) Read(ctx context.Context, table *bigquery.Table) (*RowStream, error) {
	it := r.Client.DatasetInProject(table.ProjectID, table.DatasetID).Table(table.TableID).Read(ctx)
	api := "tabledata"
	if it.IsAccelerated() {
		api = "storage"
	}
	rows := func(yield func([]bigquery.Value, error) bool) {
		for {
			var row []bigquery.Value
			err := next(it, &row)
			if errors.Is(err, iterator.Done) {
				return
			}
			if !yield(row, err) || err != nil {
				return
			}
		}
	}
	rs := NewRowStream(func() bigquery.Schema { return it.Schema }, api, rows)
	rs.total = func() uint64 { return it.TotalRows }
	return rs, nil
}

// next is it.Next, with a panic of the client library made an error: its
// Storage Read iterator (v1.85.0) indexes an empty slice when a record
// batch decodes to no rows, and one bad batch must fail this export, not
// the server.
func next(it *bigquery.RowIterator, row *[]bigquery.Value) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = bqerr.Newf(bqerr.Internal, "reading the result failed: %v", p).WithRetryable(false)
		}
	}()
	return it.Next(row)
}
