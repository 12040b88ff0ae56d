package export

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// wideArrow is the Arrow schema the Storage Read API gives P5's table
// (integration_test/bench/export.go): ten columns of the common types.
var wideArrow = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "customer", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "quantity", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "paid", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// wideBatch is rows [from, from+n) of P5's table as one record batch.
func wideBatch(from, n int) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, wideArrow)
	defer b.Release()
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for x := from + 1; x <= from+n; x++ {
		b.Field(0).(*array.Int64Builder).Append(int64(x))
		b.Field(1).(*array.StringBuilder).Append("customer-" + strconv.Itoa(x%9973))
		b.Field(2).(*array.Float64Builder).Append(float64(x) * 1.5)
		b.Field(3).(*array.Int64Builder).Append(int64(x % 100))
		b.Field(4).(*array.BooleanBuilder).Append(x%3 == 0)
		b.Field(5).(*array.Float64Builder).Append(float64(x) / 100)
		b.Field(6).(*array.Date32Builder).Append(arrow.Date32(18262 + x%3650))
		b.Field(7).(*array.TimestampBuilder).Append(arrow.Timestamp(ts + int64(x)*1e6))
		if x%10 == 0 {
			b.Field(8).AppendNull()
		} else {
			b.Field(8).(*array.StringBuilder).Append("note " + strconv.Itoa(x))
		}
		b.Field(9).(*array.Int64Builder).Append(int64(x * 7919 % 1000003))
	}
	return b.NewRecord()
}

// arrowTable is an ArrowReader of P5's table: rows rows in batches of
// batch, made as they are read, so the reader holds one batch at a time.
type arrowTable struct {
	fakeReader
	rows, batch int
}

func (a *arrowTable) ReadArrow(context.Context, *bigquery.Table) (io.Reader, error) {
	pr, pw := io.Pipe()
	go func() {
		w := ipc.NewWriter(pw, ipc.WithSchema(wideArrow))
		for from := 0; from < a.rows; from += a.batch {
			rec := wideBatch(from, min(a.batch, a.rows-from))
			if hp := os.Getenv("HEAPPROF"); hp != "" && from <= a.rows*9/10 && a.rows*9/10 < from+a.batch {
				f, _ := os.Create(hp)
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			err := w.Write(rec)
			rec.Release()
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(w.Close())
	}()
	return pr, nil
}

func TestParquetRowGroupsAndValues(t *testing.T) {
	s := NewService(Config{Reader: &arrowTable{rows: 25000, batch: 3000}})
	var buf bytes.Buffer
	schema, n, api, err := s.writeParquet(context.Background(), &bigquery.Table{}, &buf)
	if err != nil || n != 25000 || api != "storage" || len(schema) != 10 {
		t.Fatalf("writeParquet: %v rows %d api %q columns %d", err, n, api, len(schema))
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if pf.NumRows() != 25000 || pf.NumRowGroups() != 1 {
		t.Fatalf("%d rows in %d row groups, want 25000 in 1", pf.NumRows(), pf.NumRowGroups())
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	for i, f := range wideArrow.Fields() {
		if g := tbl.Schema().Field(i); g.Name != f.Name || !arrow.TypeEqual(g.Type, f.Type) {
			t.Errorf("column %d is %s %s, want %s %s", i, g.Name, g.Type, f.Name, f.Type)
		}
	}
	want := wideBatch(0, 25000)
	defer want.Release()
	for i := 0; i < int(want.NumCols()); i++ {
		got, err := array.Concatenate(tbl.Column(i).Data().Chunks(), memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(got, want.Column(i)) {
			t.Errorf("column %s differs", wideArrow.Field(i).Name)
		}
		got.Release()
	}
}

// BenchmarkParquetWriter writes P5's table (docs/performance.md) through
// the Parquet writer, without the emulator, and reports the peak of the
// memory Go holds from the system during a write, the file's row groups
// and rows per second. make bench runs it at 100,000 rows;
// EXPORT_PARQUET_ROWS sets another count:
//
//	EXPORT_PARQUET_ROWS=1000000 go test -run '^$' -bench ParquetWriter ./export/
//
// HEAPPROF=file also writes a heap profile when 90% of the rows are sent.
func BenchmarkParquetWriter(b *testing.B) {
	rowsN, _ := strconv.Atoi(os.Getenv("EXPORT_PARQUET_ROWS"))
	if rowsN <= 0 {
		rowsN = 100_000
	}
	s := NewService(Config{Reader: &arrowTable{rows: rowsN, batch: 10000}})
	var top uint64
	groups := 0
	for b.Loop() {
		f, err := os.CreateTemp(b.TempDir(), "*.parquet")
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		stop, peak := make(chan struct{}), make(chan uint64)
		go func() {
			var high uint64
			for {
				high = max(high, goMemory())
				select {
				case <-stop:
					peak <- high
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
		_, n, _, err := s.writeParquet(context.Background(), &bigquery.Table{}, f)
		close(stop)
		top = max(top, <-peak)
		if err != nil || n != int64(rowsN) {
			b.Fatalf("wrote %d of %d rows: %v", n, rowsN, err)
		}
		pf, err := file.NewParquetReader(f)
		if err != nil {
			b.Fatal(err)
		}
		groups = pf.NumRowGroups()
		f.Close()
	}
	b.ReportMetric(float64(top)/1e6, "peak-MB")
	b.ReportMetric(float64(groups), "row-groups")
	b.ReportMetric(float64(rowsN)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// goMemory is the memory the Go runtime holds from the system (what RSS
// sees of it): all of it but the heap returned to the system.
func goMemory() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64() - sample[1].Value.Uint64()
}
