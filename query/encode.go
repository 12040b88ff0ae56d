package query

// Row encoding: BigQuery result rows → compact JSON that keeps BigQuery's
// meaning for AI agents.
//
// EncodeRow appends bytes directly to a pooled []byte and switches on the
// schema's field type, using reflection only for values that the BigQuery
// client never produces.

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
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

// EncodeRow writes one result row as a JSON object whose keys follow the
// schema's column order (not Go map order), so agents see columns as the
// query produced them. The output is compact (no insignificant whitespace),
// so its length can be used directly for byte caps.
//
// A column missing from row is written as null; values beyond the schema are
// kept under BigQuery-style anonymous names ("f5_"). The only error is a
// failing json.Marshaler on a value the BigQuery client does not produce.
func EncodeRow(schema bigquery.Schema, row []bigquery.Value) (json.RawMessage, error) {
	return encodePooled(schema, row, appendRow)
}

// encodePooled runs an append encoder on a pooled buffer and returns a copy
// of what it wrote, so rows are encoded without a fresh buffer each time.
func encodePooled(schema bigquery.Schema, row []bigquery.Value, appendFn func([]byte, bigquery.Schema, []bigquery.Value) ([]byte, error)) (json.RawMessage, error) {
	bp := encBufPool.Get().(*[]byte)
	buf, err := appendFn((*bp)[:0], schema, row)
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

// Format is the shape of a result row.
type Format string

const (
	// FormatCompact writes a row as a JSON array of values in schema order:
	// the column names are said once, in the result's schema. It is the
	// default because names repeated in every row were 43% of a typical
	// 100-row result.
	FormatCompact Format = "compact"
	// FormatObjects writes a row as a JSON object keyed by column name.
	FormatObjects Format = "objects"
)

// ParseFormat reads a format argument; empty means FormatCompact.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", FormatCompact:
		return FormatCompact, nil
	case FormatObjects:
		return FormatObjects, nil
	}
	return "", fmt.Errorf("unknown row format %q (want compact or objects)", s)
}

// EncodeRowAs writes one result row in format f. Nested STRUCT values are
// objects in either format, so a value reads the same wherever it appears.
func EncodeRowAs(schema bigquery.Schema, row []bigquery.Value, f Format) (json.RawMessage, error) {
	if f != FormatCompact {
		return EncodeRow(schema, row)
	}
	return encodePooled(schema, row, appendRowArray)
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

// appendRow is EncodeRow's body, appending to a reusable buffer. On error
// it returns dst unchanged.
func appendRow(dst []byte, schema bigquery.Schema, row []bigquery.Value) ([]byte, error) {
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

// encAny encodes v by its Go type alone: the fallback for unknown field
// types and for values whose Go type does not match the field type.
func encAny(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return encString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int64:
		return encInt(dst, x), nil
	case int:
		return encInt(dst, int64(x)), nil
	case int32:
		return encInt(dst, int64(x)), nil
	case int16:
		return encInt(dst, int64(x)), nil
	case int8:
		return encInt(dst, int64(x)), nil
	case uint64:
		if x <= encMaxSafeInt {
			return strconv.AppendUint(dst, x, 10), nil
		}
		dst = append(dst, '"')
		return append(strconv.AppendUint(dst, x, 10), '"'), nil
	case uint:
		return encAny(dst, uint64(x))
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case float64:
		return encFloat(dst, x, 64), nil
	case float32:
		return encFloat(dst, float64(x), 32), nil
	case []byte:
		return encBytes(dst, x), nil
	case time.Time:
		return encTimestamp(dst, x), nil
	case civil.Date:
		return encDate(dst, x), nil
	case civil.Time:
		return encTime(dst, x), nil
	case civil.DateTime:
		return encDateTime(dst, x), nil
	case *big.Rat:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return encDecimal(dst, x, bigquery.BigNumericScaleDigits), nil
	case *bigquery.IntervalValue:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return encString(dst, x.String()), nil
	case bigquery.IntervalValue:
		return encString(dst, x.String()), nil
	case *bigquery.RangeValue:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return encRange(dst, nil, x)
	case bigquery.RangeValue:
		return encRange(dst, nil, &x)
	case json.RawMessage:
		return encRawJSON(dst, x), nil
	case []bigquery.Value:
		return encAnySlice(dst, x)
	case []any:
		return encAnySlice(dst, x)
	case map[string]bigquery.Value:
		return encAnyMap(dst, x)
	case map[string]any:
		return encAnyMap(dst, x)
	case json.Number:
		return encNumber(dst, x)
	}
	if encIsNil(v) {
		return append(dst, "null"...), nil
	}
	if m, ok := v.(json.Marshaler); ok {
		b, err := m.MarshalJSON()
		if err != nil {
			return dst, fmt.Errorf("query: encoding %T: %w", v, err)
		}
		if len(b) > 0 && json.Valid(b) {
			return encRawJSON(dst, b), nil
		}
	}
	return encString(dst, fmt.Sprint(v)), nil
}

func encAnySlice[E any](dst []byte, s []E) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, e := range s {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = encAny(dst, e); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// encAnyMap writes a Go map with sorted keys, so output is deterministic.
func encAnyMap[E any](dst []byte, m map[string]E) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(encString(dst, k), ':')
		if dst, err = encAny(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// encAsSlice returns the elements of a repeated value.
func encAsSlice(v bigquery.Value) ([]bigquery.Value, bool) {
	switch x := v.(type) {
	case []bigquery.Value:
		return x, true
	case []any:
		// Not produced by the client; copy rather than reach for unsafe.
		out := make([]bigquery.Value, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, true
	}
	return nil, false
}

func encAsRange(v bigquery.Value) *bigquery.RangeValue {
	switch x := v.(type) {
	case *bigquery.RangeValue:
		return x // nil pointer is handled by encAny as null
	case bigquery.RangeValue:
		return &x
	}
	return nil
}

// encIsNil reports whether v is nil or a nil pointer, map, slice, func,
// channel or interface. Only reached for values outside the fast path.
func encIsNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
