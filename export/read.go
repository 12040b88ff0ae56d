package export

import (
	"context"
	"errors"
	"iter"
	"time"

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
	// StallTimeout is the longest a read may go without a row (watch).
	// Zero: DefaultStallTimeout.
	StallTimeout time.Duration
}

// Read starts reading table, bound to r.Client (the table may come from
// another client, whose job found it).
func (r ClientReader) Read(ctx context.Context, table *bigquery.Table) (*RowStream, error) {
	ctx, tick, stop := watch(ctx, r.StallTimeout)
	it := r.Client.DatasetInProject(table.ProjectID, table.DatasetID).Table(table.TableID).Read(ctx)
	api := "tabledata"
	if it.IsAccelerated() {
		api = "storage"
	}
	rows := func(yield func([]bigquery.Value, error) bool) {
		defer stop()
		for {
			var row []bigquery.Value
			err := next(it, &row)
			tick()
			if err != nil {
				err = stalled(ctx, err, r.StallTimeout)
			}
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

// DefaultStallTimeout is the longest a table read may go without a row (a
// record batch, for Parquet) before it is given up as UNAVAILABLE. The
// client library's Storage Read iterator (v1.85.0) reads a broken stream
// again, from its offset, after UNAVAILABLE, INTERNAL, ABORTED, CANCELLED
// or DEADLINE_EXCEEDED for as long as its context lives, with no cap: a
// stream that never recovers would hold the call open until the client
// gives up. Given up, the read is one failed attempt of the export
// operation, whose policy decides whether to read again. Tests shorten
// it (ClientReader.StallTimeout).
const DefaultStallTimeout = 2 * time.Minute

// errStall marks a read given up by watch.
var errStall = errors.New("stalled")

// watch returns ctx, cancelled when tick is not called for d (zero:
// DefaultStallTimeout), and stop, which ends it.
func watch(ctx context.Context, d time.Duration) (_ context.Context, tick, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	d = stallTimeout(d)
	t := time.AfterFunc(d, func() { cancel(errStall) })
	return ctx, func() { t.Reset(d) }, func() { t.Stop(); cancel(nil) }
}

// stallTimeout is d, or DefaultStallTimeout when d is not positive.
func stallTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultStallTimeout
	}
	return d
}

// stalled is err, or the error that says the read was given up when watch
// ended ctx (after d without a row).
func stalled(ctx context.Context, err error, d time.Duration) error {
	if errors.Is(context.Cause(ctx), errStall) {
		// Not wrapping err: that is the context's cancellation, which would
		// read as the caller's and end the retries.
		return bqerr.Newf(bqerr.Unavailable, "the result's read stream sent nothing for %s; the read was given up", stallTimeout(d))
	}
	return err
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
