package query

// Row encoding: BigQuery result rows → compact JSON that keeps BigQuery's
// meaning for AI agents.
//
// The hot path (EncodeRow / AppendRow) appends bytes directly to a []byte and
// switches on the schema's field type, using reflection only for values that
// the BigQuery client never produces. EncodeValue builds the same result as
// Go values (for tests and for echoing query parameters back to callers);
// TestEncodeValueMatchesEncodeRow keeps the two in step.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
)

// encMaxSafeInt is the largest magnitude an IEEE-754 double represents exactly
// (2^53). INTEGER values beyond it are emitted as decimal strings, because
// JavaScript and many other JSON clients would silently round them.
const encMaxSafeInt = 1 << 53

// OrderedObject is a JSON object whose members are marshalled in the order
// given, unlike a Go map. EncodeValue returns it for RECORD/STRUCT and RANGE
// values. Keys and Values have the same length.
type OrderedObject struct {
	Keys   []string
	Values []any
}

// Get returns the value stored under key and whether it is present.
func (o OrderedObject) Get(key string) (any, bool) {
	for i, k := range o.Keys {
		if k == key {
			return o.Values[i], true
		}
	}
	return nil, false
}

// MarshalJSON implements json.Marshaler, keeping key order and writing no
// insignificant whitespace.
func (o OrderedObject) MarshalJSON() ([]byte, error) {
	return encSafe(nil, o)
}

// EncodeRow writes one result row as a JSON object whose keys follow the
// schema's column order (not Go map order), so agents see columns as the
// query produced them. The output is compact (no insignificant whitespace),
// so its length can be used directly for byte caps.
//
// A column missing from row is written as null; values beyond the schema are
// kept under BigQuery-style anonymous names ("f5_"). The only error is a
// failing json.Marshaler on a value the BigQuery client does not produce.
func EncodeRow(schema bigquery.Schema, row []bigquery.Value) (json.RawMessage, error) {
	bp := encBufPool.Get().(*[]byte)
	buf, err := AppendRow((*bp)[:0], schema, row)
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

// AppendRow is EncodeRow appending to dst, for callers that reuse a buffer
// across rows. On error it returns dst unchanged.
func AppendRow(dst []byte, schema bigquery.Schema, row []bigquery.Value) ([]byte, error) {
	start := len(dst)
	dst = append(dst, '{')
	n := max(len(schema), len(row))
	var err error
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		var v bigquery.Value
		if i < len(row) {
			v = row[i]
		}
		if i < len(schema) && schema[i] != nil {
			f := schema[i]
			dst = encKey(dst, f.Name, i, "_field_")
			dst, err = encField(dst, f, v)
		} else {
			dst = encKey(dst, "", i, "f")
			dst, err = encAny(dst, v)
		}
		if err != nil {
			return dst[:start], err
		}
	}
	return append(dst, '}'), nil
}

// EncodeValue converts one value of field f (honouring f.Repeated and nested
// f.Schema) to a JSON-safe Go value: string, bool, float64, json.Number (for
// INTEGER), json.RawMessage (for valid JSON columns), nil, []any or
// OrderedObject. A nil f encodes v by its Go type alone. It never fails: a
// foreign value whose MarshalJSON fails falls back to its fmt.Sprint string.
func EncodeValue(f *bigquery.FieldSchema, v bigquery.Value) any {
	if f == nil {
		return valAny(v)
	}
	if f.Repeated {
		elems, ok := encAsSlice(v)
		if !ok {
			if encIsNil(v) {
				return []any{}
			}
			return []any{valScalar(f, v)} // keep the promised array shape
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			out[i] = valScalar(f, e)
		}
		return out
	}
	return valScalar(f, v)
}

// ---------------------------------------------------------------------------
// Hot path: append JSON bytes.

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
	case OrderedObject, json.Number:
		return encSafe(dst, x)
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

// encSafe writes a value produced by EncodeValue.
func encSafe(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case json.Number:
		if x == "" {
			return append(dst, '0'), nil // as encoding/json does
		}
		if c := x[0]; (c != '-' && (c < '0' || c > '9')) || !json.Valid([]byte(x)) {
			return dst, fmt.Errorf("query: invalid number literal %q", string(x))
		}
		return append(dst, x...), nil
	case OrderedObject:
		if len(x.Keys) != len(x.Values) {
			return dst, fmt.Errorf("query: OrderedObject has %d keys but %d values", len(x.Keys), len(x.Values))
		}
		dst = append(dst, '{')
		var err error
		for i, k := range x.Keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(encString(dst, k), ':')
			if dst, err = encSafe(dst, x.Values[i]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		dst = append(dst, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = encSafe(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	return encAny(dst, v)
}

// ---------------------------------------------------------------------------
// Scalars.

func encInt(dst []byte, n int64) []byte {
	if n >= -encMaxSafeInt && n <= encMaxSafeInt {
		return strconv.AppendInt(dst, n, 10)
	}
	dst = append(dst, '"')
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, '"')
}

// encFloat writes x exactly as encoding/json does (shortest round-trip
// representation, exponent only outside [1e-6, 1e21)), and the non-finite
// values JSON cannot represent as the strings "NaN", "Infinity", "-Infinity".
func encFloat(dst []byte, x float64, bits int) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, `"NaN"`...)
	case math.IsInf(x, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(x, -1):
		return append(dst, `"-Infinity"`...)
	}
	abs := math.Abs(x)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, x, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

func encBytes(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// encTimestamp writes RFC 3339 in UTC with only the fractional digits
// needed, e.g. "2024-03-01T12:00:00.5Z".
func encTimestamp(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.UTC().AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"')
}

// encDate, encTime and encDateTime produce exactly what civil's
// String methods produce, without fmt; values outside the ranges the fast
// path handles fall back to String.
func encDate(dst []byte, d civil.Date) []byte {
	dst = append(dst, '"')
	if d.Year >= 0 && d.Year <= 9999 && d.Month >= 0 && d.Month <= 99 && d.Day >= 0 && d.Day <= 99 {
		dst = encDigits(dst, d.Year, 4)
		dst = append(dst, '-')
		dst = encDigits(dst, int(d.Month), 2)
		dst = append(dst, '-')
		dst = encDigits(dst, d.Day, 2)
	} else {
		dst = append(dst, d.String()...)
	}
	return append(dst, '"')
}

func encTime(dst []byte, t civil.Time) []byte {
	dst = append(dst, '"')
	dst = encTimeBody(dst, t)
	return append(dst, '"')
}

func encDateTime(dst []byte, dt civil.DateTime) []byte {
	dst = encDate(dst, dt.Date)
	dst[len(dst)-1] = 'T' // replace the closing quote
	dst = encTimeBody(dst, dt.Time)
	return append(dst, '"')
}

// encTimeBody matches civil.Time.String: "15:04:05" plus ".%09d" when
// there are nanoseconds.
func encTimeBody(dst []byte, t civil.Time) []byte {
	if t.Hour < 0 || t.Hour > 99 || t.Minute < 0 || t.Minute > 99 || t.Second < 0 || t.Second > 99 ||
		t.Nanosecond < 0 || t.Nanosecond > 999_999_999 {
		return append(dst, t.String()...)
	}
	dst = encDigits(dst, t.Hour, 2)
	dst = append(dst, ':')
	dst = encDigits(dst, t.Minute, 2)
	dst = append(dst, ':')
	dst = encDigits(dst, t.Second, 2)
	if t.Nanosecond != 0 {
		dst = append(dst, '.')
		dst = encDigits(dst, t.Nanosecond, 9)
	}
	return dst
}

// encDigits writes 0 <= n < 10^width zero-padded to width digits.
func encDigits[T int | uint64](dst []byte, n T, width int) []byte {
	dst = slices.Grow(dst, width)
	end := len(dst) + width
	dst = dst[:end]
	for i := end - 1; i >= end-width; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
	return dst
}

// encDecimal writes r as a JSON string exactly as r.FloatString(scale) does,
// which is what bigquery.NumericString (scale 9) and BigNumericString (scale
// 38) return. FloatString costs ~10 allocations (it computes 10^scale with
// big arithmetic on every call), so the common case is done with uint64
// arithmetic: the client parses NUMERIC values from decimal text, so the
// denominator is 2^a·5^b and the fraction ends after max(a, b) digits.
func encDecimal(dst []byte, r *big.Rat, scale int) []byte {
	dst = append(dst, '"')
	if out, ok := encDecimalFast(dst, r, scale); ok {
		return append(out, '"')
	}
	dst = append(dst, r.FloatString(scale)...)
	return append(dst, '"')
}

var encPow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

func encDecimalFast(dst []byte, r *big.Rat, scale int) ([]byte, bool) {
	num := r.Num() // a reference: no allocation
	if !num.IsInt64() {
		return dst, false
	}
	n := num.Int64()
	den := uint64(1)
	if !r.IsInt() {
		d := r.Denom() // a reference for non-integers (Denom allocates only for integers)
		if !d.IsUint64() {
			return dst, false
		}
		den = d.Uint64()
	}
	twos := bits.TrailingZeros64(den)
	fives, rest := 0, den>>twos
	for rest%5 == 0 {
		rest /= 5
		fives++
	}
	k := max(twos, fives) // fractional digits needed for an exact result
	if rest != 1 || k > scale || k >= len(encPow10) {
		return dst, false // FloatString would round, or too wide for uint64
	}
	u := uint64(n)
	if n < 0 {
		u = -u
		dst = append(dst, '-')
	}
	dst = strconv.AppendUint(dst, u/den, 10)
	if scale > 0 {
		dst = append(dst, '.')
		dst = encDigits(dst, (u%den)*(encPow10[k]/den), k)
		for i := k; i < scale; i++ {
			dst = append(dst, '0')
		}
	}
	return dst, true
}

// encJSONColumn embeds a JSON column's text as the JSON value itself when
// it is valid JSON (compacted), and as a string otherwise.
func encJSONColumn(dst []byte, s string) []byte {
	if s == "" || !utf8.ValidString(s) {
		return encString(dst, s)
	}
	if out, ok := encCompactJSON(dst, []byte(s)); ok {
		return out
	}
	return encString(dst, s)
}

// encRawJSON embeds already-marshalled JSON, or writes it as a string if it
// is not valid JSON.
func encRawJSON(dst []byte, b []byte) []byte {
	if len(b) > 0 && utf8.Valid(b) {
		if out, ok := encCompactJSON(dst, b); ok {
			return out
		}
	}
	return encString(dst, string(b))
}

func encCompactJSON(dst []byte, b []byte) ([]byte, bool) {
	if !encHasSpace(b) {
		if json.Valid(b) {
			return append(dst, b...), true
		}
		return dst, false
	}
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, b); err != nil {
		return dst, false
	}
	return buf.Bytes(), true
}

func encHasSpace(b []byte) bool {
	for _, c := range b {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			return true
		}
	}
	return false
}

// encString writes s as a JSON string. Unlike encoding/json it does not
// escape <, > and & (the output is for agents, not HTML); like encoding/json
// it escapes control characters, U+2028 and U+2029, and replaces invalid
// UTF-8 with U+FFFD.
func encString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// ---------------------------------------------------------------------------
// EncodeValue: the same rules, producing Go values.

func valScalar(f *bigquery.FieldSchema, v bigquery.Value) any {
	if v == nil {
		return nil
	}
	switch f.Type {
	case bigquery.StringFieldType, bigquery.GeographyFieldType:
		if s, ok := v.(string); ok {
			return s
		}
	case bigquery.IntegerFieldType, "INT64":
		if n, ok := v.(int64); ok {
			return valInt(n)
		}
	case bigquery.FloatFieldType, "FLOAT64":
		if x, ok := v.(float64); ok {
			return valFloat(x, 64)
		}
	case bigquery.BooleanFieldType, "BOOL":
		if b, ok := v.(bool); ok {
			return b
		}
	case bigquery.TimestampFieldType:
		if t, ok := v.(time.Time); ok {
			return t.UTC().Format(time.RFC3339Nano)
		}
	case bigquery.DateFieldType:
		if d, ok := v.(civil.Date); ok {
			return d.String()
		}
	case bigquery.TimeFieldType:
		if t, ok := v.(civil.Time); ok {
			return t.String()
		}
	case bigquery.DateTimeFieldType:
		if dt, ok := v.(civil.DateTime); ok {
			return dt.String()
		}
	case bigquery.NumericFieldType, "DECIMAL":
		if r, ok := v.(*big.Rat); ok && r != nil {
			return bigquery.NumericString(r)
		}
	case bigquery.BigNumericFieldType, "BIGDECIMAL":
		if r, ok := v.(*big.Rat); ok && r != nil {
			return bigquery.BigNumericString(r)
		}
	case bigquery.BytesFieldType:
		if b, ok := v.([]byte); ok {
			return base64.StdEncoding.EncodeToString(b)
		}
	case bigquery.JSONFieldType:
		if s, ok := v.(string); ok {
			return valJSONColumn(s)
		}
	case bigquery.RecordFieldType, "STRUCT":
		if rec, ok := v.([]bigquery.Value); ok {
			return valRecord(f.Schema, rec)
		}
		if m, ok := v.(map[string]bigquery.Value); ok && len(f.Schema) > 0 {
			o := OrderedObject{Keys: make([]string, len(f.Schema)), Values: make([]any, len(f.Schema))}
			for i, sf := range f.Schema {
				if sf == nil {
					continue
				}
				o.Keys[i] = valFieldName(sf.Name, i)
				o.Values[i] = EncodeValue(sf, m[sf.Name])
			}
			return o
		}
	case bigquery.RangeFieldType:
		if rv := encAsRange(v); rv != nil {
			return valRange(f.RangeElementType, rv)
		}
	}
	return valAny(v)
}

func valRecord(schema bigquery.Schema, rec []bigquery.Value) OrderedObject {
	n := max(len(schema), len(rec))
	o := OrderedObject{Keys: make([]string, n), Values: make([]any, n)}
	for i := 0; i < n; i++ {
		var v bigquery.Value
		if i < len(rec) {
			v = rec[i]
		}
		if i < len(schema) && schema[i] != nil {
			o.Keys[i] = valFieldName(schema[i].Name, i)
			o.Values[i] = EncodeValue(schema[i], v)
		} else {
			o.Keys[i] = valFieldName("", i)
			o.Values[i] = valAny(v)
		}
	}
	return o
}

func valFieldName(name string, i int) string {
	if name != "" {
		return name
	}
	return "_field_" + strconv.Itoa(i+1)
}

func valRange(elem *bigquery.RangeElementType, rv *bigquery.RangeValue) OrderedObject {
	bound := func(v bigquery.Value) any {
		if elem == nil {
			return valAny(v)
		}
		return valScalar(&bigquery.FieldSchema{Type: elem.Type}, v)
	}
	return OrderedObject{Keys: []string{"start", "end"}, Values: []any{bound(rv.Start), bound(rv.End)}}
}

func valInt(n int64) any {
	if n >= -encMaxSafeInt && n <= encMaxSafeInt {
		return json.Number(strconv.FormatInt(n, 10))
	}
	return strconv.FormatInt(n, 10)
}

func valFloat(x float64, bits int) any {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	if bits == 32 {
		// Keep float32's shortest form (0.1, not 0.10000000149011612).
		return json.Number(encFloat(nil, x, 32))
	}
	return x
}

func valJSONColumn(s string) any {
	if s != "" && utf8.ValidString(s) {
		if b, ok := encCompactJSON(nil, []byte(s)); ok {
			return json.RawMessage(b)
		}
	}
	return s
}

// valAny is the EncodeValue counterpart of encAny.
func valAny(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string, bool, json.Number, OrderedObject:
		return x
	case int64:
		return valInt(x)
	case int:
		return valInt(int64(x))
	case int32:
		return valInt(int64(x))
	case int16:
		return valInt(int64(x))
	case int8:
		return valInt(int64(x))
	case uint64:
		if x <= encMaxSafeInt {
			return json.Number(strconv.FormatUint(x, 10))
		}
		return strconv.FormatUint(x, 10)
	case uint:
		return valAny(uint64(x))
	case uint32:
		return json.Number(strconv.FormatUint(uint64(x), 10))
	case uint16:
		return json.Number(strconv.FormatUint(uint64(x), 10))
	case uint8:
		return json.Number(strconv.FormatUint(uint64(x), 10))
	case float64:
		return valFloat(x, 64)
	case float32:
		return valFloat(float64(x), 32)
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case civil.Date:
		return x.String()
	case civil.Time:
		return x.String()
	case civil.DateTime:
		return x.String()
	case *big.Rat:
		if x == nil {
			return nil
		}
		return bigquery.BigNumericString(x)
	case *bigquery.IntervalValue:
		if x == nil {
			return nil
		}
		return x.String()
	case bigquery.IntervalValue:
		return x.String()
	case *bigquery.RangeValue:
		if x == nil {
			return nil
		}
		return valRange(nil, x)
	case bigquery.RangeValue:
		return valRange(nil, &x)
	case json.RawMessage:
		if len(x) > 0 && utf8.Valid(x) {
			if b, ok := encCompactJSON(nil, x); ok {
				return json.RawMessage(b)
			}
		}
		return string(x)
	case []bigquery.Value:
		return valSlice(x)
	case []any:
		return valSlice(x)
	case map[string]bigquery.Value:
		return valMap(x)
	case map[string]any:
		return valMap(x)
	}
	if encIsNil(v) {
		return nil
	}
	if m, ok := v.(json.Marshaler); ok {
		if b, err := m.MarshalJSON(); err == nil && len(b) > 0 && json.Valid(b) {
			if c, ok := encCompactJSON(nil, b); ok {
				return json.RawMessage(c)
			}
		}
	}
	return fmt.Sprint(v)
}

func valSlice[E any](s []E) []any {
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = valAny(e)
	}
	return out
}

func valMap[E any](m map[string]E) OrderedObject {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	o := OrderedObject{Keys: keys, Values: make([]any, len(keys))}
	for i, k := range keys {
		o.Values[i] = valAny(m[k])
	}
	return o
}

// ---------------------------------------------------------------------------
// Helpers.

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
		return x // nil pointer is handled by encAny/valAny as null
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
