package export

import (
	"context"
	"io"

	"cloud.google.com/go/bigquery"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// ArrowReader is a TableReader that can also hand over a table's Arrow
// record batches as the Storage Read API sends them, for Parquet.
type ArrowReader interface {
	TableReader
	// ReadArrow returns the table's rows as an Arrow IPC stream (schema,
	// then batches), or an error when the Storage Read API is not in use.
	ReadArrow(ctx context.Context, table *bigquery.Table) (io.Reader, error)
}

// ReadArrow reads table through the Storage Read API as an Arrow IPC
// stream. Without the Storage Read API there is no Arrow to hand over.
func (r ClientReader) ReadArrow(ctx context.Context, table *bigquery.Table) (io.Reader, error) {
	it := r.Client.DatasetInProject(table.ProjectID, table.DatasetID).Table(table.TableID).Read(ctx)
	if !it.IsAccelerated() {
		return nil, errNoArrow
	}
	ai, err := it.ArrowIterator()
	if err != nil {
		return nil, err
	}
	return bigquery.NewArrowIteratorReader(ai), nil
}

var errNoArrow = bqerr.Invalid("Parquet needs the BigQuery Storage Read API, which this server cannot reach",
	"Export as jsonl or csv instead.").WithRetryable(false)

// writeParquet writes the Arrow stream from table as one Parquet file,
// with BigQuery's types as the Storage Read API gives them in Arrow
// (NUMERIC as decimal(38,9), TIMESTAMP as UTC microseconds, STRUCT and
// ARRAY nested), Snappy-compressed, and the Arrow schema stored so Arrow
// readers get the exact types back.
func (s *Service) writeParquet(ctx context.Context, table *bigquery.Table, w io.Writer) (bigquery.Schema, int64, string, error) {
	ar, ok := s.cfg.Reader.(ArrowReader)
	if !ok {
		return nil, 0, "", errNoArrow
	}
	stream, err := ar.ReadArrow(ctx, table)
	if err != nil {
		return nil, 0, "", err
	}
	rdr, err := ipc.NewReader(stream)
	if err != nil {
		return nil, 0, "", err
	}
	defer rdr.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	fw, err := pqarrow.NewFileWriter(rdr.Schema(), nopCloser{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, 0, "", err
	}
	var n int64
	report, last := progressOf(ctx), int64(0)
	for rdr.Next() {
		rec := rdr.Record()
		if err := fw.WriteBuffered(rec); err != nil {
			return nil, 0, "", err
		}
		n += rec.NumRows()
		if report != nil && n-last >= progressRows {
			report(ctx, Progress{Rows: n, Bytes: written(w)})
			last = n
		}
	}
	if err := rdr.Err(); err != nil && err != io.EOF {
		return nil, 0, "", err
	}
	if err := fw.Close(); err != nil {
		return nil, 0, "", err
	}
	var schema bigquery.Schema
	for _, f := range rdr.Schema().Fields() {
		schema = append(schema, &bigquery.FieldSchema{Name: f.Name})
	}
	return schema, n, "storage", nil
}

// nopCloser keeps the Parquet writer from closing the export's file, which
// toFile syncs and renames itself.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
