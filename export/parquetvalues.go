package export

// A column's values handed to parquet/file's typed column writers: as Arrow
// holds them where the types agree, converted where they do not.

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/bitutil"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
)

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
