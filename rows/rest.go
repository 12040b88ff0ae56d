package rows

// Result rows from the REST service's wire types (jobs.query and
// getQueryResults answer in them) to the client library's, which the
// encoder speaks: the client keeps its own converters unexported, so the
// two this package needs are here, kept to the client's wire format. A
// value read either way then encodes the same.

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
	bq "google.golang.org/api/bigquery/v2"
)

// SchemaFromREST converts a REST table schema into the client's schema,
// field by field as the client's own (unexported) bqToFieldSchema does,
// which bigquery.SchemaFromJSON runs after a JSON round trip that every
// result page would otherwise pay for (TestSchemaFromRESTAsTheClientReadsIt
// holds the two to the same answer). It never fails; the error is kept
// for its callers' sake.
func SchemaFromREST(ts *bq.TableSchema) (bigquery.Schema, error) {
	if ts == nil || len(ts.Fields) == 0 {
		return nil, nil
	}
	return schemaFromREST(ts.Fields), nil
}

func schemaFromREST(fields []*bq.TableFieldSchema) bigquery.Schema {
	out := make(bigquery.Schema, 0, len(fields))
	for _, f := range fields {
		out = append(out, fieldFromREST(f))
	}
	return out
}

func fieldFromREST(f *bq.TableFieldSchema) *bigquery.FieldSchema {
	fs := &bigquery.FieldSchema{
		Description:            f.Description,
		Name:                   f.Name,
		Repeated:               f.Mode == "REPEATED",
		Required:               f.Mode == "REQUIRED",
		Type:                   bigquery.FieldType(f.Type),
		MaxLength:              f.MaxLength,
		Precision:              f.Precision,
		Scale:                  f.Scale,
		DefaultValueExpression: f.DefaultValueExpression,
		Collation:              f.Collation,
		RoundingMode:           bigquery.RoundingMode(f.RoundingMode),
	}
	if f.PolicyTags != nil {
		fs.PolicyTags = &bigquery.PolicyTagList{Names: f.PolicyTags.Names}
	}
	if f.RangeElementType != nil {
		fs.RangeElementType = &bigquery.RangeElementType{Type: bigquery.FieldType(f.RangeElementType.Type)}
	}
	if f.TimestampPrecision != nil {
		fs.TimestampPrecision = *f.TimestampPrecision
	}
	if len(f.Fields) > 0 {
		fs.Schema = schemaFromREST(f.Fields)
	}
	return fs
}

// ValuesFromREST converts one REST row (cells of {"v": …}) into the values
// the client library would produce, so the encoder sees the same types
// either way. INT64 and NUMERIC stay exact: they arrive as strings and are parsed
// as integers and rationals, never as floats.
func ValuesFromREST(schema bigquery.Schema, r *bq.TableRow) ([]bigquery.Value, error) {
	if len(r.F) != len(schema) {
		return nil, fmt.Errorf("row has %d values for %d columns", len(r.F), len(schema))
	}
	out := make([]bigquery.Value, len(schema))
	for i, c := range r.F {
		v, err := cellValue(schema[i], c.V)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", schema[i].Name, err)
		}
		out[i] = v
	}
	return out, nil
}

func cellValue(f *bigquery.FieldSchema, v any) (bigquery.Value, error) {
	if v == nil {
		return nil, nil
	}
	if f.Repeated {
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want an array, got %T", v)
		}
		elem := *f
		elem.Repeated = false
		out := make([]bigquery.Value, 0, len(items))
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("want an array element {\"v\": …}, got %T", it)
			}
			ev, err := cellValue(&elem, m["v"])
			if err != nil {
				return nil, err
			}
			out = append(out, ev)
		}
		return out, nil
	}
	if f.Type == bigquery.RecordFieldType {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want a record, got %T", v)
		}
		cells, _ := m["f"].([]any)
		if len(cells) != len(f.Schema) {
			return nil, fmt.Errorf("record has %d values for %d fields", len(cells), len(f.Schema))
		}
		out := make([]bigquery.Value, len(cells))
		for i, c := range cells {
			cm, _ := c.(map[string]any)
			fv, err := cellValue(f.Schema[i], cm["v"])
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Schema[i].Name, err)
			}
			out[i] = fv
		}
		return out, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("want a string, got %T", v)
	}
	if f.Type == bigquery.RangeFieldType {
		return rangeValue(f, s)
	}
	return scalarValue(f.Type, s)
}

func scalarValue(t bigquery.FieldType, s string) (bigquery.Value, error) {
	switch t {
	case bigquery.StringFieldType, bigquery.GeographyFieldType, bigquery.JSONFieldType:
		return s, nil
	case bigquery.BytesFieldType:
		return base64.StdEncoding.DecodeString(s)
	case bigquery.IntegerFieldType:
		return strconv.ParseInt(s, 10, 64)
	case bigquery.FloatFieldType:
		return strconv.ParseFloat(s, 64)
	case bigquery.BooleanFieldType:
		return strconv.ParseBool(s)
	case bigquery.TimestampFieldType:
		return timestampValue(s)
	case bigquery.DateFieldType:
		return civil.ParseDate(s)
	case bigquery.TimeFieldType:
		return civil.ParseTime(s)
	case bigquery.DateTimeFieldType:
		return civil.ParseDateTime(strings.Replace(s, " ", "T", 1))
	case bigquery.NumericFieldType, bigquery.BigNumericFieldType:
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return nil, fmt.Errorf("invalid %s value %q", t, s)
		}
		return r, nil
	case bigquery.IntervalFieldType:
		return bigquery.ParseInterval(s)
	}
	return s, nil
}

// timestampValue reads a TIMESTAMP cell: microseconds since the epoch as an
// integer (formatOptions.useInt64Timestamp, what BigQuery sends when asked),
// or seconds as a decimal ("1704164645.0", what the emulator sends).
func timestampValue(s string) (time.Time, error) {
	if us, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMicro(us).UTC(), nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return time.Time{}, fmt.Errorf("invalid TIMESTAMP value %q", s)
	}
	us := new(big.Rat).Mul(r, big.NewRat(1e6, 1))
	n := new(big.Int).Quo(us.Num(), us.Denom())
	return time.UnixMicro(n.Int64()).UTC(), nil
}

// rangeValue reads "[start, end)", where either bound may be UNBOUNDED.
func rangeValue(f *bigquery.FieldSchema, s string) (bigquery.Value, error) {
	if f.RangeElementType == nil || !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, ")") {
		return nil, fmt.Errorf("invalid RANGE value %q", s)
	}
	start, end, ok := strings.Cut(s[1:len(s)-1], ", ")
	if !ok {
		return nil, fmt.Errorf("invalid RANGE value %q", s)
	}
	rv := &bigquery.RangeValue{}
	for _, b := range []struct {
		text string
		dst  *bigquery.Value
	}{{start, &rv.Start}, {end, &rv.End}} {
		if b.text == "UNBOUNDED" {
			continue
		}
		v, err := scalarValue(f.RangeElementType.Type, b.text)
		if err != nil {
			return nil, err
		}
		*b.dst = v
	}
	return rv, nil
}
