package export

import (
	"context"
	"errors"
	"io"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"google.golang.org/api/iterator"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/job"
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
	ctx, tick, stop := watch(ctx, r.StallTimeout)
	it := r.Client.DatasetInProject(table.ProjectID, table.DatasetID).Table(table.TableID).Read(ctx)
	if !it.IsAccelerated() {
		stop()
		return nil, errNoArrow
	}
	ai, err := it.ArrowIterator()
	if err != nil {
		stop()
		return nil, err
	}
	return &arrowStream{it: ai, ctx: ctx, tick: tick, stop: stop, stall: r.StallTimeout}, nil
}

// arrowStream is an ArrowIterator as one Arrow IPC stream (the schema,
// then each batch), under watch (read.go): each batch keeps it going; its
// end, or an error, stops the watch. The client library's own reader
// (bigquery.NewArrowIteratorReader, v1.85.0) dereferences a nil batch when
// the iterator fails, so a broken stream came out as a panic.
type arrowStream struct {
	it         bigquery.ArrowIterator
	ctx        context.Context
	tick, stop func()
	stall      time.Duration
	started    bool
	pending    []byte
}

func (s *arrowStream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if !s.started {
			s.started, s.pending = true, s.it.SerializedArrowSchema()
			continue
		}
		batch, err := s.it.Next()
		s.tick()
		if err != nil {
			s.stop()
			if errors.Is(err, iterator.Done) {
				return 0, io.EOF
			}
			return 0, stalled(s.ctx, err, s.stall)
		}
		s.pending = batch.Data
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	if len(s.pending) == 0 {
		s.pending = nil // the batch, read, is not kept while it is written
	}
	return n, nil
}

var errNoArrow = bqerr.Invalid("Parquet needs the BigQuery Storage Read API, which this server cannot reach",
	"Export as jsonl or csv instead.").WithRetryable(false)

// writeParquet writes the Arrow stream from table as one Parquet file in
// row groups of about rowGroupBytes, with BigQuery's types as the Storage
// Read API gives them in Arrow (NUMERIC as decimal(38,9), TIMESTAMP as UTC
// microseconds, STRUCT and ARRAY nested), Snappy-compressed, and the Arrow
// schema stored so Arrow readers get the exact types back.
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
	pw, err := newParquetWriter(rdr.Schema(), nopCloser{w}, parquetProps())
	if err != nil {
		return nil, 0, "", err
	}
	var n int64
	report, last := job.ProgressOf(ctx), int64(0)
	for rdr.Next() {
		rec := rdr.Record()
		if err := pw.write(rec); err != nil {
			return nil, 0, "", err
		}
		if pw.rowGroupBytes() >= rowGroupBytes {
			if err := pw.endRowGroup(); err != nil {
				return nil, 0, "", err
			}
		}
		n += rec.NumRows()
		if report != nil && n-last >= progressRows {
			report(ctx, job.Progress{Rows: n, Bytes: written(w)})
			last = n
		}
	}
	if err := rdr.Err(); err != nil && err != io.EOF {
		return nil, 0, "", err
	}
	if err := pw.close(); err != nil {
		return nil, 0, "", err
	}
	var schema bigquery.Schema
	for _, f := range rdr.Schema().Fields() {
		schema = append(schema, &bigquery.FieldSchema{Name: f.Name})
	}
	return schema, n, "storage", nil
}

// The Parquet writer's sizes, chosen by measurement (BenchmarkParquetWriter and
// bench P5, docs/performance.md) to keep an export's memory flat in the
// number of rows and as low as this writer allows (issue 21 asks 100 MB of
// peak RSS; P5 measured 108 MB at 100,000 rows and 138 MB at 1,000,000,
// down from 158 and 397, the rest being the collector's slack over a live
// heap of 15-45 MB):
//
//   - rowGroupBytes: a row group ends once its pages reach 8 MiB
//     (compressed; about 250,000 rows of P5's ten columns). The writer holds
//     a row group whole until it ends (Parquet writes a column chunk after
//     the other), and the default (64Mi rows) made the file one row group,
//     397 MB of peak at 1,000,000 rows. 8 MiB is well above per-batch row
//     groups (a Storage Read batch is often a few hundred KB) and readers'
//     defaults (DuckDB writes 122,880 rows a group); BigQuery's load
//     guidance asks 16 MiB for its best speed, which measured about 25 MB
//     more peak.
//   - pageBytes: data pages and dictionaries of 256 KiB, not 1 MiB: each
//     column keeps a page's encoder, uncompressed and compressed buffers,
//     and a column of distinct values fills a dictionary's hash table to
//     the limit before it falls back to plain encoding, several columns at
//     once; at 1 MiB those tables alone took 50 MB.
//   - DataPageV2: arrow/go v15's level encoder grows its buffer by 64 bytes
//     and copies it on every run of a nullable column's definition levels
//     behind a V1 page's 4-byte length (apache/arrow GH-41541, fixed in
//     v17), which was most of the CPU and 45 MB at 1,000,000 rows; V2 pages
//     carry the levels without that offset. Arrow C++/pyarrow, parquet-mr
//     (Spark, Hive, Trino), DuckDB and Polars read V2 pages.
const (
	rowGroupBytes = 8 << 20
	pageBytes     = 256 << 10
)

// parquetProps are the Parquet writer's properties: Snappy, V2 data pages,
// pages and dictionaries of pageBytes, and opts (for tests).
func parquetProps(opts ...parquet.WriterProperty) *parquet.WriterProperties {
	return parquet.NewWriterProperties(append([]parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDataPageVersion(parquet.DataPageV2),
		parquet.WithDataPageSize(pageBytes),
		parquet.WithDictionaryPageSizeLimit(pageBytes),
	}, opts...)...)
}

// nopCloser keeps the Parquet writer from closing the export's file, which
// toFile syncs and renames itself.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
