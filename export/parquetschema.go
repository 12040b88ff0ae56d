package export

// The Parquet schema of an Arrow schema, as pqarrow makes it (parquetfile.go
// says which types map to which).

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"strconv"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/schema"
)

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
