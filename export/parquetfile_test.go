package export

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/decimal256"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/apache/arrow/go/v15/parquet/schema"
)

// everyArrow is the Arrow schema of every BigQuery type as the Storage
// Read API sends it (integration_test/emulator's bqArrow: REPEATED a
// non-nullable list of non-nullable "item", REQUIRED non-nullable, the
// extension names as field metadata), with what else the writer takes:
// timestamps of other units, a decimal narrower than its 16 bytes, a
// nullable list with NULL elements, a list of lists, a field ID and
// schema metadata.
var everyArrow = func() *arrow.Schema {
	ext := func(name string) arrow.Metadata {
		return arrow.NewMetadata([]string{"ARROW:extension:name"}, []string{"google:sqlType:" + name})
	}
	item := func(t arrow.DataType) arrow.DataType {
		return arrow.ListOfField(arrow.Field{Name: "item", Type: t})
	}
	kv := arrow.StructOf(arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true})
	md := arrow.NewMetadata([]string{"origin"}, []string{"test"})
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "req", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "num", Type: &arrow.Decimal128Type{Precision: 38, Scale: 9}, Nullable: true},
		{Name: "bignum", Type: &arrow.Decimal256Type{Precision: 76, Scale: 38}, Nullable: true},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "str", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "byt", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "dt", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true, Metadata: ext("datetime")},
		{Name: "tm", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "geo", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: ext("geography")},
		{Name: "js", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: ext("json")},
		{Name: "rec", Type: arrow.StructOf(
			arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "nested", Type: arrow.StructOf(
				arrow.Field{Name: "deep", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
				arrow.Field{Name: "arr", Type: item(arrow.PrimitiveTypes.Int64)},
			), Nullable: true},
			arrow.Field{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		), Nullable: true},
		{Name: "reqrec", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		)},
		{Name: "ints", Type: item(arrow.PrimitiveTypes.Int64)},
		{Name: "strs", Type: item(arrow.BinaryTypes.String)},
		{Name: "nums", Type: item(&arrow.Decimal128Type{Precision: 38, Scale: 9})},
		{Name: "recs", Type: item(kv)},
		{Name: "range", Type: arrow.StructOf(
			arrow.Field{Name: "start", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
			arrow.Field{Name: "end", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		), Nullable: true},
		{Name: "tsms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "tsns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "tss", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Paris"}, Nullable: true},
		{Name: "tmns", Type: arrow.FixedWidthTypes.Time64ns, Nullable: true},
		{Name: "dec9", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "nlist", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "lol", Type: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String))},
		{Name: "fid", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"7"})},
	}, &md)
}()

// everyBatch is n rows of sc, from seed: about one value in eight of a
// nullable field NULL, lists of 0 to 4 values and, every 997th row, of
// 1,500 (more than a write batch of 1,024 levels), strings and decimals
// from a few hundred values (dictionaries) and from all of them
// (dictionaries that fall back).
func everyBatch(sc *arrow.Schema, seed int64, n int) arrow.Record {
	return everyBatchOf(sc, seed, n, fillOpts{})
}

// everyBatchOf is everyBatch, with lists of decimals of 1,500 values too
// when opts.longDecimals: pqarrow never finishes writing those (a list of
// decimals without NULLs goes to the column writer's WriteBatch, which
// with V2 pages cuts its batches of 1,024 levels at rows, and loops for
// ever on a row of more levels; arrow/go v15.0.2).
func everyBatchOf(sc *arrow.Schema, seed int64, n int, opts fillOpts) arrow.Record {
	r := rand.New(rand.NewSource(seed))
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for row := 0; row < n; row++ {
		for i, f := range sc.Fields() {
			fillArrow(b.Field(i), f, r, row, opts)
		}
	}
	return b.NewRecord()
}

type fillOpts struct {
	longDecimals bool // lists of 1,500 decimals too
	inList       bool // in a list: no list of 1,500
}

func fillArrow(b array.Builder, f arrow.Field, r *rand.Rand, row int, opts fillOpts) {
	if f.Nullable && r.Intn(8) == 0 {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		b.Append(r.Int63() - 1<<62)
	case *array.Float64Builder:
		v := []float64{math.Inf(1), math.Inf(-1), 0, -1.5}
		if k := r.Intn(20); k < len(v) {
			b.Append(v[k])
		} else {
			b.Append(r.NormFloat64() * 1e6)
		}
	case *array.BooleanBuilder:
		b.Append(r.Intn(2) == 0)
	case *array.StringBuilder:
		if r.Intn(2) == 0 {
			b.Append("common " + strconv.Itoa(r.Intn(300)))
		} else {
			b.Append(strings.Repeat("ünïcödé ", r.Intn(4)) + strconv.FormatInt(r.Int63(), 36))
		}
	case *array.BinaryBuilder:
		b.Append([]byte{0, 0xff, byte(r.Intn(256)), byte(row)})
	case *array.Date32Builder:
		b.Append(arrow.Date32(r.Intn(40000) - 20000))
	case *array.Time64Builder:
		b.Append(arrow.Time64(r.Int63n(86400e6)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(r.Int63n(4e15) - 2e15))
	case *array.Decimal128Builder:
		if p := f.Type.(*arrow.Decimal128Type).Precision; p < 19 {
			limit := int64(math.Pow10(int(p)))
			b.Append(decimal128.FromI64(r.Int63n(limit) - limit/2))
		} else if r.Intn(2) == 0 {
			b.Append(decimal128.FromI64(int64(r.Intn(300) - 150)))
		} else {
			b.Append(decimal128.New(r.Int63n(1<<40)-1<<39, r.Uint64()))
		}
	case *array.Decimal256Builder:
		if r.Intn(2) == 0 {
			b.Append(decimal256.FromI64(-r.Int63()))
		} else {
			b.Append(decimal256.New(uint64(r.Int63n(1<<60)), r.Uint64(), r.Uint64(), r.Uint64()))
		}
	case *array.StructBuilder:
		b.Append(true)
		st := f.Type.(*arrow.StructType)
		for j, c := range st.Fields() {
			fillArrow(b.FieldBuilder(j), c, r, row, opts)
		}
	case *array.ListBuilder:
		b.Append(true)
		n := r.Intn(5)
		elem := f.Type.(*arrow.ListType).ElemField()
		if _, decimal := elem.Type.(arrow.DecimalType); row%997 == 0 && !opts.inList && (opts.longDecimals || !decimal) {
			n = 1500
		}
		in := opts
		in.inList = true
		for k := 0; k < n; k++ {
			fillArrow(b.ValueBuilder(), elem, r, row, in)
		}
	default:
		panic(fmt.Sprintf("no values for %T", b))
	}
}

// writeOurs writes recs with parquetWriter, a row group ending once it
// reaches groupBytes, as writeParquet does.
func writeOurs(t testing.TB, sc *arrow.Schema, recs []arrow.Record, groupBytes int64, props *parquet.WriterProperties) []byte {
	t.Helper()
	var buf bytes.Buffer
	pw, err := newParquetWriter(sc, &buf, props)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := pw.write(rec); err != nil {
			t.Fatal(err)
		}
		if pw.rowGroupBytes() >= groupBytes {
			if err := pw.endRowGroup(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := pw.close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeArrows writes recs as the export did before parquetWriter, with
// pqarrow, but for two things parquetWriter does not do: the old writer
// started a full row group's successor at once, so a file whose last batch
// filled a row group ended with an empty one, and a batch of no rows
// started an empty row group too; here the successor starts with the next
// batch that has rows.
func writeArrows(t testing.TB, sc *arrow.Schema, recs []arrow.Record, groupBytes int64, props *parquet.WriterProperties) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(sc, nopCloser{&buf}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	full := false
	for _, rec := range recs {
		if rec.NumRows() == 0 {
			continue
		}
		if full {
			fw.NewBufferedRowGroup()
			full = false
		}
		if err := fw.WriteBuffered(rec); err != nil {
			t.Fatal(err)
		}
		full = max(fw.RowGroupTotalCompressedBytes(), fw.RowGroupTotalBytesWritten()) >= groupBytes
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameParquet wants two files the same: every byte before the footer (the
// column chunks: pages, levels, values, dictionaries, page statistics),
// and the footer's content, the order of each column chunk's encodings and
// page encoding statistics aside: parquet/file writes those from a Go map,
// in an order of its own each time.
func sameParquet(t *testing.T, ours, theirs []byte) {
	t.Helper()
	body := func(b []byte) []byte {
		n := len(b) - 8 - int(binary.LittleEndian.Uint32(b[len(b)-8:]))
		return b[:n]
	}
	if a, b := body(ours), body(theirs); !bytes.Equal(a, b) {
		at := 0
		for at < min(len(a), len(b)) && a[at] == b[at] {
			at++
		}
		t.Fatalf("column chunks of %d bytes, pqarrow's %d: they differ from byte %d", len(a), len(b), at)
	}
	if a, b := footer(t, ours), footer(t, theirs); a != b {
		t.Fatalf("footers differ:\n%s\npqarrow's:\n%s", a, b)
	}
}

// footer is what a file's footer says, as text.
func footer(t *testing.T, b []byte) string {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	md := pf.MetaData()
	var s strings.Builder
	fmt.Fprintf(&s, "version %v, created by %q, %d rows in %d row groups, %d bytes of footer\n", md.Version(), md.GetCreatedBy(), md.NumRows, len(md.RowGroups), md.Size())
	schema.PrintSchema(md.Schema.Root(), &s, 2)
	kv := md.KeyValueMetadata()
	for i, k := range kv.Keys() {
		fmt.Fprintf(&s, "%s = %q\n", k, kv.Values()[i])
	}
	for g := 0; g < len(md.RowGroups); g++ {
		rg := md.RowGroup(g)
		fmt.Fprintf(&s, "row group %d: %d rows, %d bytes, %d compressed, at %d\n", g, rg.NumRows(), rg.TotalByteSize(), rg.TotalCompressedSize(), rg.FileOffset())
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			encs := fmt.Sprint(cc.Encodings())
			var pes []string
			for _, e := range cc.EncodingStats() {
				pes = append(pes, fmt.Sprint(e))
			}
			sort.Strings(pes)
			enc := strings.Fields(strings.Trim(encs, "[]"))
			sort.Strings(enc)
			stats, err := cc.StatsSet()
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&s, "  %s %s %s %v: %d values, dictionary at %d, data at %d, index at %d, %d bytes, %d compressed; %v; stats %v\n",
				cc.PathInSchema(), cc.Type(), cc.Compression(), enc, cc.NumValues(), cc.DictionaryPageOffset(), cc.DataPageOffset(),
				cc.IndexPageOffset(), cc.TotalUncompressedSize(), cc.TotalCompressedSize(), pes, stats)
			if stats {
				st, err := cc.Statistics()
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&s, "    %d values, %d nulls (%v), %d distinct (%v), min/max (%v) %x %x\n", st.NumValues(), st.NullCount(), st.HasNullCount(),
					st.DistinctCount(), st.HasDistinctCount(), st.HasMinMax(), st.EncodeMin(), st.EncodeMax())
			}
		}
	}
	return s.String()
}

// canonical is value i of a as text, the same for the same value whatever
// the type it was read back as: a timestamp as its instant, a list and a
// struct by their values (not their fields' names).
func canonical(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch a := a.(type) {
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC().Format(time.RFC3339Nano)
	case *array.List:
		start, end := a.ValueOffsets(i)
		var vs []string
		for k := start; k < end; k++ {
			vs = append(vs, canonical(a.ListValues(), int(k)))
		}
		return "[" + strings.Join(vs, ", ") + "]"
	case *array.Struct:
		var vs []string
		for j := 0; j < a.NumField(); j++ {
			vs = append(vs, canonical(a.Field(j), i))
		}
		return "{" + strings.Join(vs, ", ") + "}"
	}
	return a.ValueStr(i)
}

// TestParquetSameAsArrowWriter writes the same record batches with
// parquetWriter and with Arrow's own writer (pqarrow), which the export
// used before, and wants the same file (sameParquet): the schema (types,
// repetitions, logical types, field IDs), the levels of NULLs, empty
// lists and nested records, the pages, dictionaries and their fall back,
// statistics, row groups and the stored Arrow schema. Then it reads the
// file back with pqarrow and wants the batches' values.
func TestParquetSameAsArrowWriter(t *testing.T) {
	mk := func(sc *arrow.Schema, seed int64, sizes ...int) []arrow.Record {
		var recs []arrow.Record
		for i, n := range sizes {
			recs = append(recs, everyBatch(sc, seed+int64(i), n))
		}
		return recs
	}
	wide := func(sizes ...int) []arrow.Record {
		var recs []arrow.Record
		from := 0
		for _, n := range sizes {
			recs = append(recs, wideBatch(from, n))
			from += n
		}
		return recs
	}
	sliced := func(recs []arrow.Record) []arrow.Record {
		var out []arrow.Record
		for _, rec := range recs {
			n := rec.NumRows()
			out = append(out, rec.NewSlice(n/3, n-n/5))
		}
		return out
	}
	// The emulator's own Arrow marks every field non-nullable, NULLs and
	// all: REQUIRED columns, a NULL written as its slot's value.
	required := func(recs []arrow.Record) []arrow.Record {
		var fs []arrow.Field
		for _, f := range wideArrow.Fields() {
			f.Nullable = false
			fs = append(fs, f)
		}
		sc := arrow.NewSchema(fs, nil)
		var out []arrow.Record
		for _, rec := range recs {
			out = append(out, array.NewRecord(sc, rec.Columns(), rec.NumRows()))
		}
		return out
	}
	// The sizes are small, so the race detector runs the test in seconds
	// (issue 30), and the thresholds come down with them: each case
	// crosses what it did at ten times the rows and the writer's own
	// sizes, and says so (crosses). A batch of more than a write batch
	// (1,024) of rows, each batch's first row with lists of 1,500 values
	// (everyBatch); dictionaries that fall back (the lists of strings at
	// 128 KiB, the strings and numbers of wide at 24 KiB, nearly every
	// column at 4 KiB); row groups that end after a batch and inside one.
	// The big files stay in make bench (BenchmarkParquetWriter,
	// TestExportEveryType at 20,000 rows).
	every := mk(everyArrow, 1, 1, 0, 999, 1100, 250, 1)
	noNums := without(everyArrow, "nums")
	pages := func(kib int64) []parquet.WriterProperty {
		return []parquet.WriterProperty{parquet.WithDataPageSize(kib << 10), parquet.WithDictionaryPageSizeLimit(kib << 10)}
	}
	// What each case must cross: the rows of each row group, and the
	// columns whose dictionary falls back to plain pages (so their chunk
	// has several pages).
	type crossing struct {
		groups    []int64
		fallsBack []string
	}
	lists := []string{"lol.list.element.list.element", "recs.list.element.v", "strs.list.element"}
	everyColumn := []string{"bignum", "byt", "d", "dec9", "dt", "f64", "fid", "geo", "id", "ints.list.element", "js",
		"lol.list.element.list.element", "nlist.list.element", "num", "range.end", "range.start", "rec.day", "rec.k",
		"rec.nested.arr.list.element", "rec.nested.deep", "rec.v", "recs.list.element.k", "recs.list.element.v", "req",
		"reqrec.a", "reqrec.b", "str", "strs.list.element", "tm", "tmns", "ts", "tsms", "tsns", "tss"} // but flag, no dictionary
	cases := []struct {
		name       string
		sc         *arrow.Schema
		recs       []arrow.Record
		groupBytes int64
		props      []parquet.WriterProperty
		crosses    crossing
	}{
		{"wide in pages and dictionaries of 24 KiB", wideArrow, wide(1250, 1250, 625), rowGroupBytes, pages(24),
			crossing{[]int64{3125}, []string{"customer", "note"}}},
		{"wide in row groups of 40 KiB", wideArrow, wide(1000, 2000, 3000, 1, 1000), 40 << 10, pages(24),
			crossing{[]int64{6000, 1001}, []string{"amount", "customer", "id", "note", "price", "score", "ts"}}},
		{"wide in pages and dictionaries of 1 KiB", wideArrow, wide(1000, 2000), rowGroupBytes, pages(1),
			crossing{[]int64{3000}, []string{"amount", "customer", "day", "id", "note", "price", "score", "ts"}}},
		{"wide, every column REQUIRED", required(wide(1))[0].Schema(), required(wide(1500, 500)), rowGroupBytes, nil,
			crossing{groups: []int64{2000}}},
		{"every type", everyArrow, every, rowGroupBytes, pages(128), crossing{[]int64{2351}, lists}},
		{"every type in row groups of 16 KiB", everyArrow, every, 16 << 10, pages(64), crossing{[]int64{1000, 1100, 251}, lists}},
		// Not nums: see TestParquetDecimalLists.
		{"every type in pages and dictionaries of 4 KiB", noNums, mk(noNums, 1, 1, 0, 999, 1100, 250, 1), rowGroupBytes, pages(4),
			crossing{[]int64{2351}, everyColumn}},
		{"every type in row groups of 400 rows", everyArrow, every, rowGroupBytes,
			[]parquet.WriterProperty{parquet.WithMaxRowGroupLength(400)}, crossing{groups: []int64{400, 400, 400, 400, 400, 351}}},
		{"every type sliced", everyArrow, sliced(every), rowGroupBytes, pages(64), crossing{[]int64{1100}, lists}},
		{"every type, no rows", everyArrow, mk(everyArrow, 9, 0), rowGroupBytes, nil, crossing{}},
		{"every type, no batches", everyArrow, nil, rowGroupBytes, nil, crossing{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ours := writeOurs(t, c.sc, c.recs, c.groupBytes, parquetProps(c.props...))
			theirs := writeArrows(t, c.sc, c.recs, c.groupBytes, parquetProps(c.props...))
			sameParquet(t, ours, theirs)
			var rows int64
			for _, rec := range c.recs {
				rows += rec.NumRows()
			}
			groups := readBack(t, ours, c.sc, c.recs)
			t.Logf("%d bytes, %d rows in %d row groups", len(ours), rows, groups)
			crossed(t, ours, c.crosses.groups, c.crosses.fallsBack)
		})
	}
}

// crossed wants file's row groups of groups rows each, and the dictionary
// of each column of fallsBack to fall back to plain pages in a row group
// (a dictionary page, data pages of its indices, then plain ones): the
// boundaries a test means to cross, kept when its sizes change.
func crossed(t *testing.T, b []byte, groups []int64, fallsBack []string) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var rows []int64
	fell := map[string]bool{}
	for g := 0; g < pf.NumRowGroups(); g++ {
		rg := pf.RowGroup(g)
		rows = append(rows, rg.NumRows())
		for c := 0; c < rg.NumColumns(); c++ {
			pr, err := rg.GetColumnPageReader(c)
			if err != nil {
				t.Fatal(err)
			}
			cc, err := rg.MetaData().ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			dict, indices := cc.HasDictionaryPage(), false
			for first := true; pr.Next(); first = false {
				switch {
				case first && dict: // the dictionary page
				case parquet.Encoding(pr.Page().Encoding()) != parquet.Encodings.Plain:
					indices = true
				case dict && indices:
					fell[cc.PathInSchema().String()] = true
				}
			}
			if err := pr.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Equal(rows, groups) {
		t.Errorf("row groups of %v rows, want %v", rows, groups)
	}
	for _, c := range fallsBack {
		if !fell[c] {
			t.Errorf("the dictionary of %s does not fall back", c)
		}
	}
}

// TestParquetDecimalLists writes lists of decimals, with a row of 1,500
// of them, in pages of 4 KiB. pqarrow never finished such a file (see
// everyBatchOf). Without such a row it wrote the same values, its pages
// of a list of decimals without NULLs cut at rows (WriteBatch), where
// parquetWriter cuts them, as pqarrow did every other list's, by count
// (WriteBatchSpaced): the files differ only when a page ends inside a
// batch, and read the same.
func TestParquetDecimalLists(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "nums", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: &arrow.Decimal128Type{Precision: 38, Scale: 9}})},
		{Name: "bignums", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: &arrow.Decimal256Type{Precision: 76, Scale: 38}})},
		{Name: "nullable", Type: arrow.ListOf(&arrow.Decimal128Type{Precision: 38, Scale: 9}), Nullable: true},
	}, nil)
	var recs []arrow.Record
	for i, n := range []int{1, 1100, 250} {
		recs = append(recs, everyBatchOf(sc, int64(i), n, fillOpts{longDecimals: true}))
	}
	b := writeOurs(t, sc, recs, rowGroupBytes, parquetProps(parquet.WithDataPageSize(4<<10), parquet.WithDictionaryPageSizeLimit(4<<10)))
	readBack(t, b, sc, recs)
}

// without is sc without the fields named.
func without(sc *arrow.Schema, names ...string) *arrow.Schema {
	var fs []arrow.Field
	for _, f := range sc.Fields() {
		if !slices.Contains(names, f.Name) {
			fs = append(fs, f)
		}
	}
	md := sc.Metadata()
	return arrow.NewSchema(fs, &md)
}

// readBack reads file with pqarrow and wants recs' values, in row groups
// none of which is empty; it returns how many there are.
func readBack(t *testing.T, b []byte, sc *arrow.Schema, recs []arrow.Record) int {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	groups := pf.NumRowGroups()
	for g := 0; g < groups; g++ {
		if pf.RowGroup(g).NumRows() == 0 {
			t.Errorf("row group %d of %d is empty", g, groups)
		}
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
	var rows int64
	for _, rec := range recs {
		rows += rec.NumRows()
	}
	if tbl.NumRows() != rows || int(tbl.NumCols()) != sc.NumFields() {
		t.Fatalf("%d rows of %d columns read back, want %d of %d", tbl.NumRows(), tbl.NumCols(), rows, sc.NumFields())
	}
	if rows == 0 {
		return groups
	}
	for i, f := range sc.Fields() {
		if got := tbl.Schema().Field(i); got.Name != f.Name || got.Nullable != f.Nullable {
			t.Errorf("column %d: %s (nullable %v), want %s (%v)", i, got.Name, got.Nullable, f.Name, f.Nullable)
		}
		got, err := array.Concatenate(tbl.Column(i).Data().Chunks(), memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		var parts []arrow.Array
		for _, rec := range recs {
			parts = append(parts, rec.Column(i))
		}
		want, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < want.Len(); r++ {
			if !f.Nullable && want.IsNull(r) {
				continue // a REQUIRED column has no NULL: the slot's value went
			}
			if g, w := canonical(got, r), canonical(want, r); g != w {
				t.Errorf("column %s (%s, read back as %s) row %d: %.200s, want %.200s", f.Name, f.Type, got.DataType(), r, g, w)
				break
			}
		}
		got.Release()
		want.Release()
	}
	return groups
}

// TestParquetLevelsAsTheWriterSees checks each column's levels against
// the column writer's own: the maximum definition and repetition levels
// and the definition level of its innermost repeated ancestor.
func TestParquetLevelsAsTheWriterSees(t *testing.T) {
	pw, err := newParquetWriter(everyArrow, &bytes.Buffer{}, parquetProps())
	if err != nil {
		t.Fatal(err)
	}
	rec := everyBatch(everyArrow, 1, 1)
	defer rec.Release()
	if err := pw.write(rec); err != nil {
		t.Fatal(err)
	}
	if len(pw.leaves) != pw.fw.Schema.NumColumns() {
		t.Fatalf("%d leaves, %d columns", len(pw.leaves), pw.fw.Schema.NumColumns())
	}
	for _, l := range pw.leaves {
		cw, err := pw.rgw.Column(l.index)
		if err != nil {
			t.Fatal(err)
		}
		info := cw.LevelInfo()
		if info.DefLevel != l.maxDef || info.RepLevel != l.maxRep || info.RepeatedAncestorDefLevel != l.repAnc {
			t.Errorf("column %s: levels %d %d %d, the writer's %+v", cw.Descr().Path(), l.maxDef, l.maxRep, l.repAnc, info)
		}
	}
}

func TestParquetDecimalSize(t *testing.T) {
	for p := int32(1); p <= 76; p++ {
		if got, want := decimalSize(p), int(pqarrow.DecimalSize(p)); got != want {
			t.Errorf("decimalSize(%d) = %d, want %d", p, got, want)
		}
	}
}

// TestParquetRefusesOtherTypes: types the Storage Read API does not send
// are refused with the column's name, before the file starts.
func TestParquetRefusesOtherTypes(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "ok", Type: arrow.PrimitiveTypes.Int64},
		{Name: "small", Type: arrow.StructOf(arrow.Field{Name: "f", Type: arrow.PrimitiveTypes.Float32})},
	}, nil)
	var buf bytes.Buffer
	if _, err := newParquetWriter(sc, &buf, parquetProps()); err == nil || !strings.Contains(err.Error(), "f:") || !strings.Contains(err.Error(), "float32") {
		t.Fatalf("err = %v", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("%d bytes written", buf.Len())
	}
}
