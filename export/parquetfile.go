package export

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
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
