package rows

// Row encoding: Append writes bytes directly to the caller's buffer and
// switches on the schema's field type, using reflection only for values
// that the BigQuery client never produces.

import (
	"encoding/json"
	"math/big"
	"strconv"
	"sync"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
)

// encMaxSafeInt is the largest magnitude an IEEE-754 double represents exactly
// (2^53). INTEGER values beyond it are emitted as decimal strings, because
// JavaScript and many other JSON clients would silently round them.
const encMaxSafeInt = 1 << 53

// Encode writes one result row in format f (the package doc has the value
// rules) and returns it in a slice of its own. The output is compact (no
// insignificant whitespace), so its length can be used directly for byte
// caps.
//
// A column missing from row is written as null; values beyond the schema
// are kept under BigQuery-style anonymous names ("f5_"). The only error is a
// failing json.Marshaler on a value the BigQuery client does not produce.
func Encode(schema bigquery.Schema, row []bigquery.Value, f Format) (json.RawMessage, error) {
	bp := encBufPool.Get().(*[]byte)
	buf, err := Append((*bp)[:0], schema, row, f)
	var out json.RawMessage
	if err == nil {
		out = make(json.RawMessage, len(buf))
		copy(out, buf)
	}
	if cap(buf) <= encMaxPooledBuf {
		*bp = buf
		encBufPool.Put(bp)
	}
	return out, err
}

// Append is Encode onto dst, for a writer that streams many rows through
// one buffer (a JSON Lines file is rows in FormatObjects, one per line). On
// error it returns dst unchanged.
func Append(dst []byte, schema bigquery.Schema, row []bigquery.Value, f Format) ([]byte, error) {
	if f == FormatCompact {
		return appendRowArray(dst, schema, row)
	}
	return appendRowObject(dst, schema, row)
}

// appendRowArray writes a row as a JSON array in schema order; on error it
// returns dst unchanged.
func appendRowArray(dst []byte, schema bigquery.Schema, row []bigquery.Value) ([]byte, error) {
	start := len(dst)
	dst = append(dst, '[')
	var err error
	for i := range max(len(schema), len(row)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendCell(dst, schema, row, i); err != nil {
			return dst[:start], err
		}
	}
	return append(dst, ']'), nil
}

// appendRowObject writes a row as a JSON object whose keys follow the
// schema's column order (not Go map order), so agents see columns as the
// query produced them. On error it returns dst unchanged.
func appendRowObject(dst []byte, schema bigquery.Schema, row []bigquery.Value) ([]byte, error) {
	start := len(dst)
	dst = append(dst, '{')
	var err error
	for i := range max(len(schema), len(row)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendColumnKey(dst, schema, i)
		if dst, err = appendCell(dst, schema, row, i); err != nil {
			return dst[:start], err
		}
	}
	return append(dst, '}'), nil
}

// appendColumnKey writes `"name":` for column i of a result row.
func appendColumnKey(dst []byte, schema bigquery.Schema, i int) []byte {
	if i < len(schema) && schema[i] != nil {
		return encKey(dst, schema[i].Name, i, "_field_")
	}
	return encKey(dst, "", i, "f")
}

// appendCell writes the value of column i of a result row: by its field's
// type, or by its Go type alone beyond the schema.
func appendCell(dst []byte, schema bigquery.Schema, row []bigquery.Value, i int) ([]byte, error) {
	var v bigquery.Value
	if i < len(row) {
		v = row[i]
	}
	if i < len(schema) && schema[i] != nil {
		return encField(dst, schema[i], v)
	}
	return encAny(dst, v)
}

var encBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// encMaxPooledBuf keeps one huge row from pinning a huge buffer in the pool.
const encMaxPooledBuf = 64 << 10

// encKey writes `"name":`, naming an anonymous column prefix+index the way
// BigQuery does ("_field_1" for struct members, "f0_" for query columns).
func encKey(dst []byte, name string, i int, prefix string) []byte {
	if name != "" {
		dst = encString(dst, name)
	} else {
		dst = append(dst, '"')
		dst = append(dst, prefix...)
		if prefix == "f" {
			dst = strconv.AppendInt(dst, int64(i), 10)
			dst = append(dst, '_')
		} else {
			dst = strconv.AppendInt(dst, int64(i+1), 10)
		}
		dst = append(dst, '"')
	}
	return append(dst, ':')
}

func encField(dst []byte, f *bigquery.FieldSchema, v bigquery.Value) ([]byte, error) {
	if !f.Repeated {
		return encScalar(dst, f, v)
	}
	elems, ok := encAsSlice(v)
	if !ok {
		if encIsNil(v) {
			return append(dst, '[', ']'), nil
		}
		elems = []bigquery.Value{v}
	}
	dst = append(dst, '[')
	var err error
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = encScalar(dst, f, e); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// encScalar encodes one non-repeated value of f's type. A Go type that does
// not match f.Type falls through to encAny.
func encScalar(dst []byte, f *bigquery.FieldSchema, v bigquery.Value) ([]byte, error) {
	if v == nil {
		return append(dst, "null"...), nil
	}
	switch f.Type {
	case bigquery.StringFieldType, bigquery.GeographyFieldType:
		if s, ok := v.(string); ok {
			return encString(dst, s), nil
		}
	case bigquery.IntegerFieldType, "INT64":
		if n, ok := v.(int64); ok {
			return encInt(dst, n), nil
		}
	case bigquery.FloatFieldType, "FLOAT64":
		if x, ok := v.(float64); ok {
			return encFloat(dst, x, 64), nil
		}
	case bigquery.BooleanFieldType, "BOOL":
		if b, ok := v.(bool); ok {
			return strconv.AppendBool(dst, b), nil
		}
	case bigquery.TimestampFieldType:
		if t, ok := v.(time.Time); ok {
			return encTimestamp(dst, t), nil
		}
	case bigquery.DateFieldType:
		if d, ok := v.(civil.Date); ok {
			return encDate(dst, d), nil
		}
	case bigquery.TimeFieldType:
		if t, ok := v.(civil.Time); ok {
			return encTime(dst, t), nil
		}
	case bigquery.DateTimeFieldType:
		if dt, ok := v.(civil.DateTime); ok {
			return encDateTime(dst, dt), nil
		}
	case bigquery.NumericFieldType, "DECIMAL":
		if r, ok := v.(*big.Rat); ok && r != nil {
			return encDecimal(dst, r, bigquery.NumericScaleDigits), nil
		}
	case bigquery.BigNumericFieldType, "BIGDECIMAL":
		if r, ok := v.(*big.Rat); ok && r != nil {
			return encDecimal(dst, r, bigquery.BigNumericScaleDigits), nil
		}
	case bigquery.BytesFieldType:
		if b, ok := v.([]byte); ok {
			return encBytes(dst, b), nil
		}
	case bigquery.JSONFieldType:
		if s, ok := v.(string); ok {
			return encJSONColumn(dst, s), nil
		}
	case bigquery.RecordFieldType, "STRUCT":
		if rec, ok := v.([]bigquery.Value); ok {
			return encRecord(dst, f.Schema, rec)
		}
		if m, ok := v.(map[string]bigquery.Value); ok && len(f.Schema) > 0 {
			return encRecordMap(dst, f.Schema, m)
		}
	case bigquery.RangeFieldType:
		if rv := encAsRange(v); rv != nil {
			return encRange(dst, f.RangeElementType, rv)
		}
	}
	return encAny(dst, v)
}

func encRecord(dst []byte, schema bigquery.Schema, rec []bigquery.Value) ([]byte, error) {
	dst = append(dst, '{')
	n := max(len(schema), len(rec))
	var err error
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		var v bigquery.Value
		if i < len(rec) {
			v = rec[i]
		}
		if i < len(schema) && schema[i] != nil {
			dst = encKey(dst, schema[i].Name, i, "_field_")
			dst, err = encField(dst, schema[i], v)
		} else {
			dst = encKey(dst, "", i, "_field_")
			dst, err = encAny(dst, v)
		}
		if err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func encRecordMap(dst []byte, schema bigquery.Schema, m map[string]bigquery.Value) ([]byte, error) {
	dst = append(dst, '{')
	var err error
	for i, f := range schema {
		if i > 0 {
			dst = append(dst, ',')
		}
		if f == nil {
			dst = append(dst, `"":null`...)
			continue
		}
		dst = encKey(dst, f.Name, i, "_field_")
		if dst, err = encField(dst, f, m[f.Name]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func encRange(dst []byte, elem *bigquery.RangeElementType, rv *bigquery.RangeValue) ([]byte, error) {
	var err error
	dst = append(dst, `{"start":`...)
	if dst, err = encRangeBound(dst, elem, rv.Start); err != nil {
		return dst, err
	}
	dst = append(dst, `,"end":`...)
	if dst, err = encRangeBound(dst, elem, rv.End); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

func encRangeBound(dst []byte, elem *bigquery.RangeElementType, v bigquery.Value) ([]byte, error) {
	if elem == nil {
		return encAny(dst, v)
	}
	f := bigquery.FieldSchema{Type: elem.Type}
	return encScalar(dst, &f, v)
}
