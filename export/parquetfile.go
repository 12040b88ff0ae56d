package export

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"strconv"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/bitutil"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/metadata"
	"github.com/apache/arrow/go/v15/parquet/schema"
)

// parquetWriter writes Arrow record batches to one Parquet file through
// parquet/file's typed column writers, as Arrow's own writer
// (parquet/pqarrow, the Arrow schema stored) wrote them for the types
// BigQuery sends: the same file, column chunks byte for byte and footer
// alike (TestParquetSameAsArrowWriter), but in three things. A batch of no
// rows, and the next row group after a full one, start a row group only
// when rows come (pqarrow's eager one ended a file with an empty row group
// when its last batch filled one); the pages of a list of decimals are
// cut by count, as pqarrow cut every other list's, where pqarrow cut them
// at rows and never finished a row of more than 1,024 of them
// (TestParquetDecimalLists); and the writer's panics come back as errors.
// pqarrow links arrow/compute and arrow/flight (docs/performance.md);
// parquet/file links neither.
//
// As pqarrow does, an Arrow field is OPTIONAL when nullable and REQUIRED
// otherwise; a STRUCT is a group of its fields; a list is the three-level
// LIST group (list, repeated group "list", OPTIONAL "element", whatever the
// Arrow element's nullability); INT64 is INT64 (INT(64, signed)), FLOAT64
// DOUBLE, BOOL BOOLEAN, STRING BYTE_ARRAY (STRING), BINARY BYTE_ARRAY,
// DATE32 INT32 (DATE), TIME64 INT64 (TIME, adjusted to UTC), TIMESTAMP
// INT64 (TIMESTAMP, adjusted to UTC when its zone is UTC or none, seconds
// as milliseconds), DECIMAL128 and DECIMAL256 FIXED_LEN_BYTE_ARRAY of the
// precision's size (DECIMAL(p, s)); an extension type is its storage
// type. Other Arrow types, which the Storage Read API does not send, are
// refused.
type parquetWriter struct {
	fw      *file.Writer
	rgw     file.BufferedRowGroupWriter // nil between row groups
	roots   []*pqNode                   // one a top-level Arrow field
	leaves  []*pqLeaf                   // one a Parquet column, in order
	maxRows int64                       // the properties' MaxRowGroupLength
	rows    int64                       // rows in rgw
}

// pqNode is one Arrow field of the schema, for walking its arrays into
// its Parquet columns' levels and values.
type pqNode struct {
	kind     pqKind
	optional bool      // nullable: a definition level of its own
	ext      bool      // an extension type: its arrays' storage is walked
	children []*pqNode // a struct's fields, a list's element
	leaf     *pqLeaf   // a primitive's column
	leaves   []*pqLeaf // the columns at or under the node
	repLevel int16     // a list's elements' repetition level
}

type pqKind int8

const (
	pqPrimitive pqKind = iota
	pqStruct
	pqList
)

// pqLeaf is one Parquet column and what a record batch gives it.
type pqLeaf struct {
	index  int
	maxDef int16
	maxRep int16
	// repAnc is the definition level of the column's innermost repeated
	// ancestor (0 without one): a level at or above it is a slot of the
	// leaf's values, NULL or not (file.LevelInfo.RepeatedAncestorDefLevel).
	repAnc int16
	vals   pqValues
	def    []int16
	rep    []int16
}

// newParquetWriter writes the Parquet schema of sc, as pqarrow.ToParquet
// makes it, and starts the file; sc is stored in the file's key-value
// metadata (ARROW:schema) after sc's own metadata, as
// pqarrow.WithStoreSchema does, so Arrow readers get its exact types back.
func newParquetWriter(sc *arrow.Schema, w io.Writer, props *parquet.WriterProperties) (*parquetWriter, error) {
	pw := &parquetWriter{maxRows: props.MaxRowGroupLength()}
	fields := make(schema.FieldList, 0, sc.NumFields())
	for _, f := range sc.Fields() {
		n, node, err := pw.field(f.Name, f, 0, 0, 0)
		if err != nil {
			return nil, err
		}
		fields = append(fields, n)
		pw.roots = append(pw.roots, node)
	}
	root, err := schema.NewGroupNode(props.RootName(), props.RootRepetition(), fields, -1)
	if err != nil {
		return nil, err
	}
	meta := make(metadata.KeyValueMetadata, 0)
	md := sc.Metadata()
	for i, k := range md.Keys() {
		meta.Append(k, md.Values()[i])
	}
	// What flight.SerializeSchema makes: the schema message and the end of
	// the stream.
	var ser bytes.Buffer
	iw := ipc.NewWriter(&ser, ipc.WithSchema(sc), ipc.WithAllocator(props.Allocator()))
	if err := iw.Close(); err != nil {
		return nil, err
	}
	meta.Append("ARROW:schema", base64.StdEncoding.EncodeToString(ser.Bytes()))
	pw.fw = file.NewParquetWriter(w, root, file.WithWriterProps(props), file.WithWriteMetadata(meta))
	return pw, nil
}

// field is f's Parquet node (pqarrow's fieldToNode) named name, and its
// walker; def and rep are the levels of its parent, repAnc the definition
// level of its innermost repeated ancestor.
func (pw *parquetWriter) field(name string, f arrow.Field, def, rep, repAnc int16) (schema.Node, *pqNode, error) {
	typ, fieldID := f.Type, fieldIDOf(f.Metadata)
	node := &pqNode{optional: f.Nullable}
	if ext, ok := typ.(arrow.ExtensionType); ok {
		typ, node.ext, fieldID = ext.StorageType(), true, -1
	}
	repetition := parquet.Repetitions.Required
	if f.Nullable {
		repetition = parquet.Repetitions.Optional
		def++
	}
	switch t := typ.(type) {
	case *arrow.StructType:
		if t.NumFields() == 0 {
			return nil, nil, fmt.Errorf("cannot write struct type '%s' with no children field to parquet", name)
		}
		node.kind = pqStruct
		children := make(schema.FieldList, 0, t.NumFields())
		for _, cf := range t.Fields() {
			c, cn, err := pw.field(cf.Name, cf, def, rep, repAnc)
			if err != nil {
				return nil, nil, err
			}
			children = append(children, c)
			node.children = append(node.children, cn)
			node.leaves = append(node.leaves, cn.leaves...)
		}
		g, err := schema.NewGroupNode(name, repetition, children, -1)
		return g, node, err
	case *arrow.ListType:
		// The repeated group adds a level of each kind; the element is
		// OPTIONAL whatever Arrow says, and named for the list until
		// schema.ListOf names it "element".
		node.kind, node.repLevel = pqList, rep+1
		elem, en, err := pw.field(name, arrow.Field{Name: name, Type: t.Elem(), Nullable: true}, def+1, rep+1, def+1)
		if err != nil {
			return nil, nil, err
		}
		node.children, node.leaves = []*pqNode{en}, en.leaves
		g, err := schema.ListOf(elem, repetition, -1)
		return g, node, err
	}
	ptype, logical, length, vals, err := primitiveOf(typ)
	if err != nil {
		return nil, nil, fmt.Errorf("column %s: %w", name, err)
	}
	n, err := schema.NewPrimitiveNodeLogical(name, repetition, logical, ptype, length, fieldID)
	if err != nil {
		return nil, nil, err
	}
	leaf := &pqLeaf{index: len(pw.leaves), maxDef: def, maxRep: rep, repAnc: repAnc, vals: vals}
	pw.leaves = append(pw.leaves, leaf)
	node.kind, node.leaf, node.leaves = pqPrimitive, leaf, []*pqLeaf{leaf}
	return n, node, nil
}

// fieldIDOf is the field ID an Arrow field's metadata gives (PARQUET:field_id), or -1.
func fieldIDOf(md arrow.Metadata) int32 {
	k := md.FindKey("PARQUET:field_id")
	if k < 0 {
		return -1
	}
	id, err := strconv.ParseInt(md.Values()[k], 10, 32)
	if err != nil || id < 0 {
		return -1
	}
	return int32(id)
}

// primitiveOf is the Parquet type of an Arrow primitive type, as pqarrow
// writes it with default properties (Parquet 2.6), and its values' reader.
func primitiveOf(t arrow.DataType) (parquet.Type, schema.LogicalType, int, pqValues, error) {
	none := schema.NoLogicalType{}
	switch t := t.(type) {
	case *arrow.BooleanType:
		return parquet.Types.Boolean, none, -1, &typed[bool]{conv: bools}, nil
	case *arrow.Int64Type:
		return parquet.Types.Int64, schema.NewIntLogicalType(64, true), -1, &typed[int64]{conv: int64s}, nil
	case *arrow.Float64Type:
		return parquet.Types.Double, none, -1, &typed[float64]{conv: float64s}, nil
	case *arrow.StringType:
		return parquet.Types.ByteArray, schema.StringLogicalType{}, -1, &typed[parquet.ByteArray]{conv: byteArrays}, nil
	case *arrow.BinaryType:
		return parquet.Types.ByteArray, none, -1, &typed[parquet.ByteArray]{conv: byteArrays}, nil
	case *arrow.Date32Type:
		return parquet.Types.Int32, schema.DateLogicalType{}, -1, &typed[int32]{conv: int32s}, nil
	case *arrow.Time64Type:
		unit := schema.TimeUnitMicros
		if t.Unit == arrow.Nanosecond {
			unit = schema.TimeUnitNanos
		}
		return parquet.Types.Int64, schema.NewTimeLogicalType(true, unit), -1, &typed[int64]{conv: int64s}, nil
	case *arrow.TimestampType:
		utc := t.TimeZone == "" || t.TimeZone == "UTC"
		conv, unit := int64s, schema.TimeUnitMicros
		switch t.Unit {
		case arrow.Second: // no seconds in Parquet: milliseconds
			conv, unit = secondsAsMillis, schema.TimeUnitMillis
		case arrow.Millisecond:
			unit = schema.TimeUnitMillis
		case arrow.Nanosecond:
			unit = schema.TimeUnitNanos
		}
		return parquet.Types.Int64, schema.NewTimestampLogicalTypeForce(utc, unit), -1, &typed[int64]{conv: conv}, nil
	case *arrow.Decimal128Type:
		size := decimalSize(t.Precision)
		return parquet.Types.FixedLenByteArray, schema.NewDecimalLogicalType(t.Precision, t.Scale), size,
			&typed[parquet.FixedLenByteArray]{conv: decimals(16, size, func(a arrow.Array, i int, out []byte) {
				v := a.(*array.Decimal128).Value(i)
				binary.BigEndian.PutUint64(out, uint64(v.HighBits()))
				binary.BigEndian.PutUint64(out[8:], v.LowBits())
			})}, nil
	case *arrow.Decimal256Type:
		size := decimalSize(t.Precision)
		return parquet.Types.FixedLenByteArray, schema.NewDecimalLogicalType(t.Precision, t.Scale), size,
			&typed[parquet.FixedLenByteArray]{conv: decimals(32, size, func(a arrow.Array, i int, out []byte) {
				v := a.(*array.Decimal256).Value(i).Array()
				for k := 0; k < 4; k++ {
					binary.BigEndian.PutUint64(out[8*k:], v[3-k])
				}
			})}, nil
	}
	return 0, nil, 0, nil, fmt.Errorf("Parquet export does not take Arrow type %s", t)
}

// decimalSize is the fewest bytes that hold every decimal of precision
// digits in two's complement: the n with 2^(8n-1) > 10^precision - 1
// (pqarrow.DecimalSize).
func decimalSize(precision int32) int {
	if precision < 1 {
		precision = 1
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil)
	n := 1
	for new(big.Int).Lsh(big.NewInt(1), uint(8*n-1)).Cmp(limit) < 0 {
		n++
	}
	return n
}

// write adds rec's rows to the file, in the row group under way or a new
// one, starting another when a row group reaches the properties'
// MaxRowGroupLength, as pqarrow's WriteBuffered does. A batch of no rows
// starts no row group (pqarrow's started an empty one).
func (pw *parquetWriter) write(rec arrow.Record) (err error) {
	// parquet/file's writers panic on what they cannot write; pqarrow let
	// those through.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parquet: %v", r)
		}
	}()
	n := rec.NumRows()
	for off := int64(0); off < n; {
		if pw.rgw == nil || pw.rows == pw.maxRows {
			if err := pw.endRowGroup(); err != nil {
				return err
			}
			pw.rgw, pw.rows = pw.fw.AppendBufferedRowGroup(), 0
		}
		take := min(n-off, pw.maxRows-pw.rows)
		part := rec
		if off != 0 || take != n {
			part = rec.NewSlice(off, off+take)
			defer part.Release()
		}
		if err := pw.writeRows(part); err != nil {
			return err
		}
		pw.rows += take
		off += take
	}
	return nil
}

// rowGroupBytes is the size of the row group under way: its pages kept for
// a dictionary count in the first, pages already written to its buffer in
// the second, and neither alone is its size.
func (pw *parquetWriter) rowGroupBytes() int64 {
	if pw.rgw == nil {
		return 0
	}
	return max(pw.rgw.TotalCompressedBytes(), pw.rgw.TotalBytesWritten())
}

// endRowGroup writes the row group under way out; the next rows start
// another.
func (pw *parquetWriter) endRowGroup() error {
	if pw.rgw == nil {
		return nil
	}
	err := pw.rgw.Close()
	pw.rgw = nil
	return err
}

// close writes the last row group and the file's footer.
func (pw *parquetWriter) close() error {
	if err := pw.endRowGroup(); err != nil {
		return err
	}
	return pw.fw.Close()
}

// writeRows writes rec to the row group's columns. A top-level primitive
// column goes to its writer as Arrow holds it; a nested one is walked row
// by row into levels and values first.
func (pw *parquetWriter) writeRows(rec arrow.Record) error {
	if rec.NumRows() == 0 {
		return nil
	}
	for c, root := range pw.roots {
		a := rec.Column(c)
		if root.kind == pqPrimitive {
			cw, err := pw.rgw.Column(root.leaf.index)
			if err != nil {
				return err
			}
			if root.ext {
				a = a.(array.ExtensionArray).Storage()
			}
			if err := root.leaf.writeFlat(cw, a, root.optional); err != nil {
				return err
			}
			continue
		}
		for i := 0; i < a.Len(); i++ {
			root.walk(a, i, 0, 0)
		}
		for _, l := range root.leaves {
			cw, err := pw.rgw.Column(l.index)
			if err != nil {
				return err
			}
			if err := l.writeNested(cw); err != nil {
				return err
			}
		}
	}
	return nil
}

// walk adds value i of a, n's array, to n's columns: def and rep are the
// levels its parents give it (Dremel's encoding, as pqarrow's path
// builder makes it).
func (n *pqNode) walk(a arrow.Array, i int, def, rep int16) {
	if n.ext {
		a = a.(array.ExtensionArray).Storage()
	}
	if n.optional {
		if a.IsNull(i) {
			for _, l := range n.leaves {
				l.level(def, rep)
			}
			return
		}
		def++
	}
	switch n.kind {
	case pqPrimitive:
		n.leaf.value(a, i, def, rep)
	case pqStruct:
		s := a.(*array.Struct)
		for j, c := range n.children {
			c.walk(s.Field(j), i, def, rep)
		}
	case pqList:
		l := a.(*array.List)
		start, end := l.ValueOffsets(i)
		if start == end {
			for _, leaf := range n.leaves {
				leaf.level(def, rep)
			}
			return
		}
		values := l.ListValues()
		for k := start; k < end; k++ {
			n.children[0].walk(values, int(k), def+1, rep)
			rep = n.repLevel
		}
	}
}

// level adds a NULL, or an empty list, at def and rep.
func (l *pqLeaf) level(def, rep int16) {
	l.levels(def, rep)
	if def >= l.repAnc {
		l.vals.null()
	}
}

// value adds value i of a at def and rep.
func (l *pqLeaf) value(a arrow.Array, i int, def, rep int16) {
	l.levels(def, rep)
	l.vals.add(a, i)
}

func (l *pqLeaf) levels(def, rep int16) {
	if l.maxDef > 0 {
		l.def = append(l.def, def)
	}
	if l.maxRep > 0 {
		l.rep = append(l.rep, rep)
	}
}

// writeFlat writes a top-level primitive column's array: values as Arrow
// holds them, NULLs (of an OPTIONAL column) by definition levels. It hands
// them over a write batch (WriteBatchSize values) at a time, which the
// column writer would cut them into anyway: the file is the same, and the
// values converted for the writer (strings, booleans, decimals) and the
// levels take a batch's memory, not the array's.
func (l *pqLeaf) writeFlat(cw file.ColumnChunkWriter, a arrow.Array, optional bool) error {
	n, batch := a.Len(), int(cw.Properties().WriteBatchSize())
	nulls := a.NullN() > 0
	for from := 0; from < n; from += batch {
		to := min(from+batch, n)
		var def []int16
		if optional {
			def = grow(&l.def, to-from)
			for i := range def {
				def[i] = 1
				if nulls && a.IsNull(from+i) {
					def[i] = 0
				}
			}
		}
		if err := l.vals.writeFlat(cw, a, from, to, def, nulls); err != nil {
			return err
		}
	}
	return nil
}

// writeNested writes the levels and values walk gathered.
func (l *pqLeaf) writeNested(cw file.ColumnChunkWriter) error {
	var def, rep []int16
	if l.maxDef > 0 {
		def = l.def
	}
	if l.maxRep > 0 {
		rep = l.rep
	}
	err := l.vals.writeSpaced(cw, def, rep)
	l.def, l.rep = l.def[:0], l.rep[:0]
	return err
}

// pqValues gathers one column's values of a record batch and hands them
// to its typed writer.
type pqValues interface {
	// writeFlat writes values [from, to) of a, their NULLs by def (nil:
	// REQUIRED); nulls says whether a has any.
	writeFlat(cw file.ColumnChunkWriter, a arrow.Array, from, to int, def []int16, nulls bool) error
	// add adds value i of a; null adds a NULL slot.
	add(a arrow.Array, i int)
	null()
	// writeSpaced writes the values added since, one a slot of def's
	// levels (the validity of each from def), as pqarrow writes nested
	// columns: WriteBatchSpaced cuts its batches by count, where
	// WriteBatch cuts V2 pages at rows and hangs on a row of more levels
	// than a batch (arrow/go v15).
	writeSpaced(cw file.ColumnChunkWriter, def, rep []int16) error
}

// typedWriter is what each of parquet/file's typed column writers has.
type typedWriter[T any] interface {
	WriteBatch(values []T, defLevels, repLevels []int16) (int64, error)
	WriteBatchSpaced(values []T, defLevels, repLevels []int16, validBits []byte, validBitsOffset int64)
}

type typed[T any] struct {
	// conv is values [from, to) of a, NULLs as anything, in scratch or in
	// a's own buffer.
	conv    func(a arrow.Array, from, to int, scratch *[]T) []T
	scratch []T
	spaced  []T
	from    arrow.Array // whose values vals holds, during a batch
	vals    []T
}

func (v *typed[T]) writeFlat(cw file.ColumnChunkWriter, a arrow.Array, from, to int, def []int16, nulls bool) error {
	w, ok := cw.(typedWriter[T])
	if !ok {
		return fmt.Errorf("parquet: column %s is not written with %T", cw.Descr().Name(), v.scratch)
	}
	vals := v.conv(a, from, to, &v.scratch)
	defer clear(v.scratch) // a's strings: a batch's buffers go with it
	if def == nil || !nulls {
		_, err := w.WriteBatch(vals, def, nil)
		return err
	}
	w.WriteBatchSpaced(vals, def, nil, a.NullBitmapBytes(), int64(a.Data().Offset()+from))
	return nil
}

func (v *typed[T]) add(a arrow.Array, i int) {
	if a != v.from {
		v.from, v.vals = a, v.conv(a, 0, a.Len(), &v.scratch)
	}
	v.spaced = append(v.spaced, v.vals[i])
}

func (v *typed[T]) null() {
	var zero T
	v.spaced = append(v.spaced, zero)
}

func (v *typed[T]) writeSpaced(cw file.ColumnChunkWriter, def, rep []int16) error {
	defer func() {
		clear(v.spaced)
		v.spaced, v.from, v.vals = v.spaced[:0], nil, nil
	}()
	w, ok := cw.(typedWriter[T])
	if !ok {
		return fmt.Errorf("parquet: column %s is not written with %T", cw.Descr().Name(), v.spaced)
	}
	if def == nil { // REQUIRED all the way down: no levels, no NULLs
		_, err := w.WriteBatch(v.spaced, nil, nil)
		return err
	}
	if !cw.HasBitsBuffer() {
		buf := memory.NewResizableBuffer(cw.Properties().Allocator())
		buf.Resize(int(bitutil.BytesForBits(cw.Properties().WriteBatchSize())))
		cw.SetBitsBuffer(buf)
	}
	w.WriteBatchSpaced(v.spaced, def, rep, nil, 0)
	return nil
}

// fixed is values [from, to) of a's values buffer as []T, for a
// fixed-width type of T's size.
func fixed[T int32 | int64 | float64](a arrow.Array, from, to int, traits interface{ CastFromBytes([]byte) []T }) []T {
	d := a.Data()
	if to == from || len(d.Buffers()) < 2 || d.Buffers()[1] == nil {
		return nil
	}
	return traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset()+from : d.Offset()+to]
}

func int64s(a arrow.Array, from, to int, _ *[]int64) []int64 {
	return fixed[int64](a, from, to, arrow.Int64Traits)
}

func int32s(a arrow.Array, from, to int, _ *[]int32) []int32 {
	return fixed[int32](a, from, to, arrow.Int32Traits)
}

func float64s(a arrow.Array, from, to int, _ *[]float64) []float64 {
	return fixed[float64](a, from, to, arrow.Float64Traits)
}

func secondsAsMillis(a arrow.Array, from, to int, scratch *[]int64) []int64 {
	out := grow(scratch, to-from)
	for i, s := range fixed[int64](a, from, to, arrow.Int64Traits) {
		out[i] = s * 1000
	}
	return out
}

func bools(a arrow.Array, from, to int, scratch *[]bool) []bool {
	b := a.(*array.Boolean)
	out := grow(scratch, to-from)
	for i := range out {
		out[i] = b.Value(from + i)
	}
	return out
}

// byteArrays are a's values in a's own buffer: the column writer copies
// them into its pages and dictionary (its statistics keep them, as they
// do pqarrow's).
func byteArrays(a arrow.Array, from, to int, scratch *[]parquet.ByteArray) []parquet.ByteArray {
	out := grow(scratch, to-from)
	var data []byte
	if b := a.Data().Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	offs := a.(interface{ ValueOffsets() []int32 }).ValueOffsets()[from:]
	for i := range out {
		out[i] = data[offs[i]:offs[i+1]]
	}
	return out
}

// decimals writes each decimal of a big-endian in width bytes (put) and
// keeps the last size of them, the precision's size; a NULL's bytes are
// whatever Arrow holds. Each call gets new bytes: the column's statistics
// keep their minimum and maximum by reference until the row group ends.
func decimals(width, size int, put func(a arrow.Array, i int, out []byte)) func(arrow.Array, int, int, *[]parquet.FixedLenByteArray) []parquet.FixedLenByteArray {
	return func(a arrow.Array, from, to int, scratch *[]parquet.FixedLenByteArray) []parquet.FixedLenByteArray {
		out := grow(scratch, to-from)
		buf := make([]byte, width*len(out))
		for i := range out {
			b := buf[i*width : (i+1)*width]
			put(a, from+i, b)
			out[i] = b[width-size:]
		}
		return out
	}
}

// grow is *scratch at length n, grown when it is shorter.
func grow[T any](scratch *[]T, n int) []T {
	if cap(*scratch) < n {
		*scratch = make([]T, n)
	}
	return (*scratch)[:n]
}
