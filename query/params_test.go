package query

import (
	"encoding/json"
	"strings"
	"testing"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

func TestParseType(t *testing.T) {
	for in, want := range map[string]string{
		"int64":                                "INT64",
		"INTEGER":                              "INT64",
		" string(10) ":                         "STRING",
		"NUMERIC(10, 2)":                       "NUMERIC",
		"ARRAY<STRING>":                        "ARRAY<STRING>",
		"array< date >":                        "ARRAY<DATE>",
		"STRUCT<id INT64, tags ARRAY<STRING>>": "STRUCT<id INT64, tags ARRAY<STRING>>",
		"ARRAY<STRUCT<a BOOL, b STRUCT<c JSON>>>": "ARRAY<STRUCT<a BOOL, b STRUCT<c JSON>>>",
	} {
		typ, err := ParseType(in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", in, err)
			continue
		}
		if got := FormatType(typ); got != want {
			t.Errorf("ParseType(%q) = %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "INT65", "ARRAY<>", "ARRAY<ARRAY<INT64>>", "ARRAY<INT64", "STRUCT<INT64>", "STRUCT<a INT64,>", "INT64 extra",
		strings.Repeat("ARRAY<STRUCT<a ", 20) + "INT64" + strings.Repeat(">>", 20)} {
		if _, err := ParseType(bad); err == nil {
			t.Errorf("ParseType(%q): want an error", bad)
		}
	}
}

// wire returns the JSON the client library would send for the parameters.
func wire(t *testing.T, params []Parameter) string {
	t.Helper()
	qps, err := BuildParameters(params)
	if err != nil {
		t.Fatalf("BuildParameters: %v", err)
	}
	var parts []string
	for _, qp := range qps {
		v := qp.Value.(*bigquery.QueryParameterValue)
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"name": qp.Name, "type": FormatType(&v.Type), "value": valueOf(v)}); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, strings.TrimSpace(b.String()))
	}
	return strings.Join(parts, "\n")
}

func valueOf(v *bigquery.QueryParameterValue) any {
	switch {
	case v.ArrayValue != nil:
		out := []any{}
		for i := range v.ArrayValue {
			out = append(out, valueOf(&v.ArrayValue[i]))
		}
		return out
	case v.StructValue != nil:
		out := map[string]any{}
		for k, f := range v.StructValue {
			out[k] = valueOf(&f)
		}
		return out
	}
	if _, null := v.Value.(bigquery.NullString); null {
		return nil
	}
	return v.Value
}

func TestBuildParametersCanonicalValues(t *testing.T) {
	got := wire(t, []Parameter{
		{Name: "@i", Type: "INT64", Value: json.Number("9007199254740993")},
		{Name: "f", Type: "FLOAT64", Value: json.Number("1.5")},
		{Name: "n", Type: "NUMERIC", Value: "12345678901234567890.123456789"},
		{Name: "bn", Type: "BIGNUMERIC", Value: json.Number("1e-10")},
		{Name: "b", Type: "BOOL", Value: "true"},
		{Name: "by", Type: "BYTES", Value: "aGVsbG8="},
		{Name: "d", Type: "DATE", Value: "2024-02-29"},
		{Name: "dt", Type: "DATETIME", Value: "2024-02-29 12:00:00.5"},
		{Name: "tm", Type: "TIME", Value: "23:59:59"},
		{Name: "ts", Type: "TIMESTAMP", Value: "2024-05-01T09:30:00+02:00"},
		{Name: "j", Type: "JSON", Value: map[string]any{"a": json.Number("1")}},
		{Name: "nul", Type: "DATE", Value: nil},
		{Name: "s", Type: "STRUCT<city STRING, zip INT64, tags ARRAY<STRING>>", Value: map[string]any{"city": "Oslo", "zip": json.Number("150"), "tags": []any{"a"}}},
		{Name: "e", Type: "ARRAY<INT64>", Value: []any{}},
	})
	for _, want := range []string{
		`{"name":"i","type":"INT64","value":"9007199254740993"}`,
		`{"name":"f","type":"FLOAT64","value":"1.5"}`,
		`{"name":"n","type":"NUMERIC","value":"12345678901234567890.123456789"}`,
		`{"name":"bn","type":"BIGNUMERIC","value":"0.00000000010000000000000000000000000000"}`,
		`{"name":"b","type":"BOOL","value":"true"}`,
		`{"name":"by","type":"BYTES","value":"aGVsbG8="}`,
		`{"name":"d","type":"DATE","value":"2024-02-29"}`,
		`{"name":"dt","type":"DATETIME","value":"2024-02-29 12:00:00.500000"}`,
		`{"name":"tm","type":"TIME","value":"23:59:59"}`,
		`{"name":"ts","type":"TIMESTAMP","value":"2024-05-01 07:30:00+00:00"}`,
		`{"name":"j","type":"JSON","value":"{\"a\":1}"}`,
		`{"name":"nul","type":"DATE","value":null}`,
		`{"name":"s","type":"STRUCT<city STRING, zip INT64, tags ARRAY<STRING>>","value":{"city":"Oslo","tags":["a"],"zip":"150"}}`,
		`{"name":"e","type":"ARRAY<INT64>","value":[]}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
}

func TestBuildParametersRejects(t *testing.T) {
	for _, tc := range []struct {
		p    Parameter
		want string
	}{
		{Parameter{Name: "x", Type: "INT64", Value: "ten"}, `"x"`},
		{Parameter{Name: "x", Type: "INT64", Value: json.Number("1.5")}, "whole number"},
		{Parameter{Name: "x", Type: "INT64", Value: "9223372036854775808"}, "INT64"},
		{Parameter{Name: "x", Type: "DATE", Value: "2024-13-01"}, "YYYY-MM-DD"},
		{Parameter{Name: "x", Type: "TIMESTAMP", Value: "yesterday"}, "RFC 3339"},
		{Parameter{Name: "x", Type: "BYTES", Value: "***"}, "base64"},
		{Parameter{Name: "x", Type: "STRING", Value: json.Number("1")}, "string"},
		{Parameter{Name: "x", Type: "BOOL", Value: "maybe"}, "true or false"},
		{Parameter{Name: "x", Type: "ARRAY<INT64>", Value: "1,2"}, "array"},
		{Parameter{Name: "x", Type: "ARRAY<INT64>", Value: []any{json.Number("1"), nil}}, "NULL"},
		{Parameter{Name: "x", Type: "STRUCT<a INT64>", Value: map[string]any{"b": json.Number("1")}}, `"b"`},
		{Parameter{Name: "1x", Type: "INT64", Value: json.Number("1")}, "invalid name"},
		{Parameter{Name: "x", Type: "WIDGET", Value: "1"}, "unknown type"},
	} {
		_, err := BuildParameters([]Parameter{tc.p})
		e, ok := bqerr.As(err)
		if !ok || e.Code != bqerr.InvalidArgument || !strings.Contains(e.Message, tc.want) || e.Hint == "" {
			t.Errorf("%+v: got %v, want INVALID_ARGUMENT mentioning %q", tc.p, err, tc.want)
		}
	}
	_, err := BuildParameters([]Parameter{{Name: "a", Type: "INT64", Value: json.Number("1")}, {Name: "A", Type: "INT64", Value: json.Number("2")}})
	if err == nil {
		t.Error("duplicate names (case-insensitive) must be rejected")
	}
}
