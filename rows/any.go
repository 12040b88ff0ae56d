package rows

// Values by their Go type alone: the fallback for unknown field types, for
// values whose Go type does not match the field type, and for values beyond
// the schema. The BigQuery client never produces most of these; they are
// encoded rather than refused so that no row fails to reach the agent.

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
)

// encAny encodes v by its Go type alone: the fallback for unknown field
// types and for values whose Go type does not match the field type.
func encAny(dst []byte, v any) ([]byte, error) {
	if out, ok := encGoNumber(dst, v); ok {
		return out, nil
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return encString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
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
			return dst, fmt.Errorf("rows: encoding %T: %w", v, err)
		}
		if len(b) > 0 && json.Valid(b) {
			return encRawJSON(dst, b), nil
		}
	}
	return encString(dst, fmt.Sprint(v)), nil
}

// encGoNumber writes a Go integer or float by the INT64 and FLOAT64 rules,
// and reports whether v was one.
func encGoNumber(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case int64:
		return encInt(dst, x), true
	case int:
		return encInt(dst, int64(x)), true
	case int32:
		return encInt(dst, int64(x)), true
	case int16:
		return encInt(dst, int64(x)), true
	case int8:
		return encInt(dst, int64(x)), true
	case uint64:
		if x <= encMaxSafeInt {
			return strconv.AppendUint(dst, x, 10), true
		}
		dst = append(dst, '"')
		return append(strconv.AppendUint(dst, x, 10), '"'), true
	case uint:
		return encGoNumber(dst, uint64(x))
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case float64:
		return encFloat(dst, x, 64), true
	case float32:
		return encFloat(dst, float64(x), 32), true
	}
	return dst, false
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
