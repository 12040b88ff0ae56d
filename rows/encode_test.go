package rows

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
)

type tvCase struct {
	name  string
	field *bigquery.FieldSchema
	value bigquery.Value
	want  string // JSON of the column value, compact
}

func tvField(t bigquery.FieldType) *bigquery.FieldSchema { return &bigquery.FieldSchema{Type: t} }

func tvRep(t bigquery.FieldType) *bigquery.FieldSchema {
	return &bigquery.FieldSchema{Type: t, Repeated: true}
}

func tvRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad rat " + s)
	}
	return r
}

func tvRange(t bigquery.FieldType) *bigquery.FieldSchema {
	return &bigquery.FieldSchema{Type: bigquery.RangeFieldType, RangeElementType: &bigquery.RangeElementType{Type: t}}
}

type tvSprintOnly struct{ A, B int }

type tvBadMarshaler struct{}

func (tvBadMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("boom") }

type tvGoodMarshaler struct{}

func (tvGoodMarshaler) MarshalJSON() ([]byte, error) { return []byte(`{ "ok" : true }`), nil }

func tvCases() []tvCase {
	plus530 := time.FixedZone("+05:30", 5*3600+1800)
	itemsSchema := bigquery.Schema{
		{Name: "name", Type: bigquery.StringFieldType},
		{Name: "tags", Type: bigquery.StringFieldType, Repeated: true},
		{Name: "qty", Type: bigquery.IntegerFieldType},
		{Name: "price", Type: bigquery.NumericFieldType},
	}
	items := &bigquery.FieldSchema{Type: bigquery.RecordFieldType, Repeated: true, Schema: itemsSchema}
	point := &bigquery.FieldSchema{Type: bigquery.RecordFieldType, Schema: bigquery.Schema{
		{Name: "y", Type: bigquery.FloatFieldType},
		{Name: "x", Type: bigquery.FloatFieldType},
		{Name: "", Type: bigquery.StringFieldType},
	}}

	return []tvCase{
		// NULL of every type, and REPEATED never null.
		{"null string", tvField(bigquery.StringFieldType), nil, `null`},
		{"null integer", tvField(bigquery.IntegerFieldType), nil, `null`},
		{"null float", tvField(bigquery.FloatFieldType), nil, `null`},
		{"null numeric", tvField(bigquery.NumericFieldType), nil, `null`},
		{"null typed *big.Rat", tvField(bigquery.NumericFieldType), (*big.Rat)(nil), `null`},
		{"null timestamp", tvField(bigquery.TimestampFieldType), nil, `null`},
		{"null record", point, nil, `null`},
		{"null range", tvRange(bigquery.DateFieldType), nil, `null`},
		{"null typed *RangeValue", tvRange(bigquery.DateFieldType), (*bigquery.RangeValue)(nil), `null`},
		{"null interval", tvField(bigquery.IntervalFieldType), (*bigquery.IntervalValue)(nil), `null`},
		{"null json", tvField(bigquery.JSONFieldType), nil, `null`},
		{"repeated nil", tvRep(bigquery.IntegerFieldType), nil, `[]`},
		{"repeated nil slice", tvRep(bigquery.IntegerFieldType), []bigquery.Value(nil), `[]`},
		{"repeated empty", tvRep(bigquery.StringFieldType), []bigquery.Value{}, `[]`},
		{"repeated ints", tvRep(bigquery.IntegerFieldType), []bigquery.Value{int64(1), int64(1<<53 + 1), nil}, `[1,"9007199254740993",null]`},

		// INTEGER
		{"int zero", tvField(bigquery.IntegerFieldType), int64(0), `0`},
		{"int negative", tvField(bigquery.IntegerFieldType), int64(-42), `-42`},
		{"int 2^53", tvField(bigquery.IntegerFieldType), int64(1 << 53), `9007199254740992`},
		{"int 2^53+1", tvField(bigquery.IntegerFieldType), int64(1<<53 + 1), `"9007199254740993"`},
		{"int -2^53", tvField(bigquery.IntegerFieldType), int64(-(1 << 53)), `-9007199254740992`},
		{"int -2^53-1", tvField(bigquery.IntegerFieldType), int64(-(1 << 53) - 1), `"-9007199254740993"`},
		{"int max", tvField(bigquery.IntegerFieldType), int64(math.MaxInt64), `"9223372036854775807"`},
		{"int min", tvField(bigquery.IntegerFieldType), int64(math.MinInt64), `"-9223372036854775808"`},
		{"int64 alias type", tvField("INT64"), int64(7), `7`},

		// FLOAT
		{"float", tvField(bigquery.FloatFieldType), 1.5, `1.5`},
		{"float tenth", tvField(bigquery.FloatFieldType), 0.1, `0.1`},
		{"float integral", tvField(bigquery.FloatFieldType), 100.0, `100`},
		{"float big", tvField(bigquery.FloatFieldType), 1e21, `1e+21`},
		{"float small", tvField(bigquery.FloatFieldType), 1e-7, `1e-7`},
		{"float negative zero", tvField(bigquery.FloatFieldType), math.Copysign(0, -1), `-0`},
		{"float max", tvField(bigquery.FloatFieldType), math.MaxFloat64, `1.7976931348623157e+308`},
		{"float NaN", tvField(bigquery.FloatFieldType), math.NaN(), `"NaN"`},
		{"float +Inf", tvField(bigquery.FloatFieldType), math.Inf(1), `"Infinity"`},
		{"float -Inf", tvField(bigquery.FloatFieldType), math.Inf(-1), `"-Infinity"`},
		{"float64 alias type", tvField("FLOAT64"), 2.25, `2.25`},

		// NUMERIC / BIGNUMERIC
		{"numeric", tvField(bigquery.NumericFieldType), tvRat("123.45"), `"123.45"`},
		{"numeric negative", tvField(bigquery.NumericFieldType), tvRat("-0.000000001"), `"-0.000000001"`},
		{"numeric huge", tvField(bigquery.NumericFieldType), tvRat("99999999999999999999999999999.999999999"), `"99999999999999999999999999999.999999999"`},
		{"bignumeric", tvField(bigquery.BigNumericFieldType), tvRat("123.45"), `"123.45"`},
		{"numeric integral", tvField(bigquery.NumericFieldType), tvRat("10"), `"10"`},
		{"numeric half", tvField(bigquery.NumericFieldType), tvRat("10.5"), `"10.5"`},
		{"numeric zero", tvField(bigquery.NumericFieldType), tvRat("0"), `"0"`},
		{"numeric negative tenth", tvField(bigquery.NumericFieldType), tvRat("-0.1"), `"-0.1"`},
		{"bignumeric integral", tvField(bigquery.BigNumericFieldType), tvRat("-100"), `"-100"`},
		{"bignumeric tiny", tvField(bigquery.BigNumericFieldType), tvRat("1e-38"), `"0.00000000000000000000000000000000000001"`},

		// BOOLEAN / STRING / BYTES / GEOGRAPHY
		{"bool true", tvField(bigquery.BooleanFieldType), true, `true`},
		{"bool false", tvField(bigquery.BooleanFieldType), false, `false`},
		{"bool alias type", tvField("BOOL"), true, `true`},
		{"string", tvField(bigquery.StringFieldType), "héllo, 世界", `"héllo, 世界"`},
		{"string empty", tvField(bigquery.StringFieldType), "", `""`},
		{"string escapes", tvField(bigquery.StringFieldType), "q\"b\\n\nr\rt\t\x00\x1f", `"q\"b\\n\nr\rt\t\u0000\u001f"`},
		{"string html kept", tvField(bigquery.StringFieldType), "a<b && c>d", `"a<b && c>d"`},
		{"string invalid utf8", tvField(bigquery.StringFieldType), "a\xffb", `"a\ufffdb"`},
		{"string line separators", tvField(bigquery.StringFieldType), "a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"bytes", tvField(bigquery.BytesFieldType), []byte{0, 1, 2}, `"AAEC"`},
		{"bytes empty", tvField(bigquery.BytesFieldType), []byte{}, `""`},
		{"bytes padding", tvField(bigquery.BytesFieldType), []byte{0xff, 0xfe, 0xfd, 0xfc}, `"//79/A=="`},
		{"geography", tvField(bigquery.GeographyFieldType), "POINT(-122.35 47.62)", `"POINT(-122.35 47.62)"`},

		// TIMESTAMP / DATE / TIME / DATETIME
		{"timestamp fixed zone to UTC", tvField(bigquery.TimestampFieldType),
			time.Date(2024, 3, 1, 12, 30, 0, 500_000_000, plus530), `"2024-03-01T07:00:00.5Z"`},
		{"timestamp whole seconds", tvField(bigquery.TimestampFieldType),
			time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), `"2024-03-01T00:00:00Z"`},
		{"timestamp micros", tvField(bigquery.TimestampFieldType),
			time.UnixMicro(1709294400123456).UTC(), `"2024-03-01T12:00:00.123456Z"`},
		{"timestamp day rollback", tvField(bigquery.TimestampFieldType),
			time.Date(2024, 1, 1, 1, 0, 0, 0, plus530), `"2023-12-31T19:30:00Z"`},
		{"date", tvField(bigquery.DateFieldType), civil.DateOf(time.Date(2024, 2, 29, 23, 59, 0, 0, time.UTC)), `"2024-02-29"`},
		{"date year 1", tvField(bigquery.DateFieldType), civil.Date{Year: 1, Month: 1, Day: 1}, `"0001-01-01"`},
		{"date year 9999", tvField(bigquery.DateFieldType), civil.Date{Year: 9999, Month: 12, Day: 31}, `"9999-12-31"`},
		{"time", tvField(bigquery.TimeFieldType), civil.Time{Hour: 9, Minute: 5, Second: 7}, `"09:05:07"`},
		{"time fraction", tvField(bigquery.TimeFieldType), civil.Time{Hour: 23, Minute: 59, Second: 59, Nanosecond: 500_000_000}, `"23:59:59.500000000"`},
		{"datetime", tvField(bigquery.DateTimeFieldType),
			civil.DateTime{Date: civil.Date{Year: 2024, Month: 2, Day: 29}, Time: civil.Time{Hour: 12, Minute: 34, Second: 56}}, `"2024-02-29T12:34:56"`},
		{"datetime micros", tvField(bigquery.DateTimeFieldType),
			civil.DateTimeOf(time.Date(2024, 2, 29, 12, 34, 56, 1000, time.UTC)), `"2024-02-29T12:34:56.000001000"`},

		// JSON
		{"json object", tvField(bigquery.JSONFieldType), `{"a":1}`, `{"a":1}`},
		{"json compacted", tvField(bigquery.JSONFieldType), "{ \"a\" : [1, 2],\n \"b\": \"x y\" }", `{"a":[1,2],"b":"x y"}`},
		{"json scalar string", tvField(bigquery.JSONFieldType), `"hi"`, `"hi"`},
		{"json big number kept exact", tvField(bigquery.JSONFieldType), `12345678901234567890`, `12345678901234567890`},
		{"json invalid", tvField(bigquery.JSONFieldType), `{a:1}`, `"{a:1}"`},
		{"json truncated", tvField(bigquery.JSONFieldType), `{"a":`, `"{\"a\":"`},
		{"json empty text", tvField(bigquery.JSONFieldType), ``, `""`},
		{"json invalid utf8", tvField(bigquery.JSONFieldType), "\"\xff\"", `"\"\ufffd\""`},

		// INTERVAL
		{"interval", tvField(bigquery.IntervalFieldType),
			&bigquery.IntervalValue{Years: 1, Months: 2, Days: 3, Hours: 4, Minutes: 5, Seconds: 6, SubSecondNanos: 500_000_000}, `"1-2 3 4:5:6.5"`},
		{"interval canonicalised", tvField(bigquery.IntervalFieldType), &bigquery.IntervalValue{Months: 14, Seconds: 3661}, `"1-2 0 1:1:1"`},
		{"interval negative", tvField(bigquery.IntervalFieldType), &bigquery.IntervalValue{Days: -3, Hours: -1}, `"0-0 -3 -1:0:0"`},

		// RANGE
		{"range date open end", tvRange(bigquery.DateFieldType),
			&bigquery.RangeValue{Start: civil.Date{Year: 2024, Month: 1, Day: 1}}, `{"start":"2024-01-01","end":null}`},
		{"range timestamp", tvRange(bigquery.TimestampFieldType),
			&bigquery.RangeValue{Start: time.Date(2024, 1, 1, 5, 30, 0, 0, plus530), End: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
			`{"start":"2024-01-01T00:00:00Z","end":"2024-01-02T00:00:00Z"}`},
		{"range datetime unbounded", tvRange(bigquery.DateTimeFieldType), &bigquery.RangeValue{}, `{"start":null,"end":null}`},
		{"range without element type", tvField(bigquery.RangeFieldType),
			&bigquery.RangeValue{Start: civil.Date{Year: 2024, Month: 1, Day: 1}}, `{"start":"2024-01-01","end":null}`},

		// RECORD
		{"record keeps schema order", point, []bigquery.Value{2.5, -1.0, "lbl"}, `{"y":2.5,"x":-1,"_field_3":"lbl"}`},
		{"record short value", point, []bigquery.Value{2.5}, `{"y":2.5,"x":null,"_field_3":null}`},
		{"record extra value", point, []bigquery.Value{2.5, 1.0, "s", int64(9)}, `{"y":2.5,"x":1,"_field_3":"s","_field_4":9}`},
		{"record from map", point, map[string]bigquery.Value{"x": 1.0, "y": 2.0}, `{"y":2,"x":1,"_field_3":null}`},
		{"repeated struct with array inside", items, []bigquery.Value{
			[]bigquery.Value{"a", []bigquery.Value{"x", "y"}, int64(1), tvRat("9.99")},
			[]bigquery.Value{"b", []bigquery.Value(nil), nil, nil},
		}, `[{"name":"a","tags":["x","y"],"qty":1,"price":"9.99"},{"name":"b","tags":[],"qty":null,"price":null}]`},
		{"repeated struct empty", items, []bigquery.Value{}, `[]`},
		{"struct alias type", &bigquery.FieldSchema{Type: "STRUCT", Schema: bigquery.Schema{{Name: "n", Type: "INT64"}}},
			[]bigquery.Value{int64(1 << 60)}, `{"n":"1152921504606846976"}`},

		// Mismatched and unknown types: never panic, never error.
		{"integer given a string", tvField(bigquery.IntegerFieldType), "12", `"12"`},
		{"integer given a float", tvField(bigquery.IntegerFieldType), 3.5, `3.5`},
		{"integer given an int", tvField(bigquery.IntegerFieldType), 12, `12`},
		{"string given a struct", tvField(bigquery.StringFieldType), tvSprintOnly{1, 2}, `"{1 2}"`},
		{"date given a string", tvField(bigquery.DateFieldType), "2024-01-01", `"2024-01-01"`},
		{"numeric given float", tvField(bigquery.NumericFieldType), 1.25, `1.25`},
		{"record given a scalar", point, "oops", `"oops"`},
		{"repeated given a scalar", tvRep(bigquery.IntegerFieldType), int64(5), `[5]`},
		{"repeated given []any", tvRep(bigquery.IntegerFieldType), []any{int64(1), int64(2)}, `[1,2]`},
		{"unknown type int", tvField("FUTURE_TYPE"), int64(3), `3`},
		{"unknown type big int", tvField("FUTURE_TYPE"), uint64(math.MaxUint64), `"18446744073709551615"`},
		{"unknown type nested", tvField("FUTURE_TYPE"), []bigquery.Value{"a", map[string]bigquery.Value{"z": 1.0, "a": true}}, `["a",{"a":true,"z":1}]`},
		{"unknown type float32", tvField("FUTURE_TYPE"), float32(0.1), `0.1`},
		{"unknown type pointer", tvField("FUTURE_TYPE"), (*tvSprintOnly)(nil), `null`},
		{"json marshaler", tvField("FUTURE_TYPE"), tvGoodMarshaler{}, `{"ok":true}`},
		{"empty type", tvField(""), "x", `"x"`},
	}
}

func tvEncodeOne(t testing.TB, f *bigquery.FieldSchema, v bigquery.Value) []byte {
	t.Helper()
	col := *f
	if col.Name == "" {
		col.Name = "c"
	}
	out, err := Encode(bigquery.Schema{&col}, []bigquery.Value{v}, FormatObjects)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return out
}

func TestEncodeValues(t *testing.T) {
	for _, tc := range tvCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := string(tvEncodeOne(t, tc.field, tc.value))
			if want := `{"c":` + tc.want + `}`; got != want {
				t.Errorf("Encode\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestEncodeValidJSON checks every case decodes, and that the output is
// compact (re-compacting changes nothing).
func TestEncodeValidJSON(t *testing.T) {
	for _, tc := range tvCases() {
		out := tvEncodeOne(t, tc.field, tc.value)
		if !json.Valid(out) {
			t.Errorf("%s: invalid JSON %s", tc.name, out)
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, out); err != nil || !bytes.Equal(c.Bytes(), out) {
			t.Errorf("%s: output not compact: %s", tc.name, out)
		}
	}
}

func tvDecode(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// TestEncodeMeanings decodes Encode's output the way a JSON client
// does and checks what BigQuery's values mean there: safe integers are
// numbers, larger ones exact strings, non-finite floats named strings, JSON
// columns embedded, arrays never null, ranges objects with start and end.
func TestEncodeMeanings(t *testing.T) {
	decoded := func(f *bigquery.FieldSchema, v bigquery.Value) any {
		t.Helper()
		return tvDecode(t, tvEncodeOne(t, f, v)).(map[string]any)["c"]
	}
	if got := decoded(tvField(bigquery.IntegerFieldType), int64(5)); got != json.Number("5") {
		t.Errorf("INTEGER: got %#v", got)
	}
	if got := decoded(tvField(bigquery.IntegerFieldType), int64(1<<53+1)); got != "9007199254740993" {
		t.Errorf("big INTEGER: got %#v", got)
	}
	if got := decoded(tvField(bigquery.FloatFieldType), 0.5); got != json.Number("0.5") {
		t.Errorf("FLOAT: got %#v", got)
	}
	if got := decoded(tvField(bigquery.FloatFieldType), math.NaN()); got != "NaN" {
		t.Errorf("NaN: got %#v", got)
	}
	if got := decoded(tvField(bigquery.JSONFieldType), `{"a":1}`); !reflect.DeepEqual(got, map[string]any{"a": json.Number("1")}) {
		t.Errorf("JSON: got %#v", got)
	}
	if got := decoded(tvField(bigquery.JSONFieldType), `{a:1}`); got != "{a:1}" {
		t.Errorf("invalid JSON: got %#v", got)
	}
	if got := decoded(tvRep(bigquery.StringFieldType), nil); !reflect.DeepEqual(got, []any{}) {
		t.Errorf("nil repeated: got %#v", got)
	}
	r, ok := decoded(tvRange(bigquery.DateFieldType), &bigquery.RangeValue{Start: civil.Date{Year: 2024, Month: 5, Day: 6}}).(map[string]any)
	if !ok {
		t.Fatalf("RANGE: got %T", r)
	}
	if s := r["start"]; s != "2024-05-06" {
		t.Errorf("RANGE start: %#v", s)
	}
	if e, ok := r["end"]; !ok || e != nil {
		t.Errorf("RANGE end: %#v %v", e, ok)
	}
	// A value beyond the schema is encoded by its Go type alone.
	out, err := Encode(nil, []bigquery.Value{int64(3)}, FormatObjects)
	if err != nil {
		t.Fatal(err)
	}
	if got := tvDecode(t, out).(map[string]any)["f0_"]; got != json.Number("3") {
		t.Errorf("no field: got %#v", got)
	}
}

func tvMixedSchema() bigquery.Schema {
	return bigquery.Schema{
		{Name: "zeta", Type: bigquery.StringFieldType},
		{Name: "id", Type: bigquery.IntegerFieldType},
		{Name: "alpha", Type: bigquery.FloatFieldType},
		{Name: "ok", Type: bigquery.BooleanFieldType},
		{Name: "ts", Type: bigquery.TimestampFieldType},
		{Name: "d", Type: bigquery.DateFieldType},
		{Name: "tm", Type: bigquery.TimeFieldType},
		{Name: "dt", Type: bigquery.DateTimeFieldType},
		{Name: "amount", Type: bigquery.NumericFieldType},
		{Name: "big", Type: bigquery.BigNumericFieldType},
		{Name: "blob", Type: bigquery.BytesFieldType},
		{Name: "geo", Type: bigquery.GeographyFieldType},
		{Name: "doc", Type: bigquery.JSONFieldType},
		{Name: "span", Type: bigquery.IntervalFieldType},
		{Name: "period", Type: bigquery.RangeFieldType, RangeElementType: &bigquery.RangeElementType{Type: bigquery.DateFieldType}},
		{Name: "tags", Type: bigquery.StringFieldType, Repeated: true},
		{Name: "user", Type: bigquery.RecordFieldType, Schema: bigquery.Schema{
			{Name: "name", Type: bigquery.StringFieldType},
			{Name: "age", Type: bigquery.IntegerFieldType},
		}},
		{Name: "huge", Type: bigquery.IntegerFieldType},
		{Name: "missing", Type: bigquery.StringFieldType},
		{Name: "b", Type: bigquery.FloatFieldType},
	}
}

func tvMixedRow() []bigquery.Value {
	return []bigquery.Value{
		"Widget \"deluxe\"",
		int64(123456789),
		3.14159,
		true,
		time.Date(2024, 3, 1, 12, 30, 45, 123456000, time.UTC),
		civil.Date{Year: 2024, Month: 3, Day: 1},
		civil.Time{Hour: 12, Minute: 30, Second: 45},
		civil.DateTime{Date: civil.Date{Year: 2024, Month: 3, Day: 1}, Time: civil.Time{Hour: 12, Minute: 30, Second: 45, Nanosecond: 1000}},
		tvRat("1234.5"),
		tvRat("-0.25"),
		[]byte("binary\x00data"),
		"POINT(1 2)",
		`{"k":[1,2,3],"s":"v"}`,
		&bigquery.IntervalValue{Days: 3, Hours: 4},
		&bigquery.RangeValue{Start: civil.Date{Year: 2024, Month: 1, Day: 1}},
		[]bigquery.Value{"red", "green", "blue"},
		[]bigquery.Value{"ada", int64(36)},
		int64(1<<62 + 1),
		nil,
		-2.5e-9,
	}
}

// TestEncodeKeyOrder checks keys come out in schema order, not sorted or
// map order.
func TestEncodeKeyOrder(t *testing.T) {
	schema := tvMixedSchema()
	out, err := Encode(schema, tvMixedRow(), FormatObjects)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) {
		t.Fatalf("invalid JSON: %s", out)
	}
	var want []string
	for _, f := range schema {
		want = append(want, f.Name)
	}
	if got := tvTopLevelKeys(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("key order\n got %v\nwant %v", got, want)
	}
	nested := `"user":{"name":"ada","age":36}`
	if !strings.Contains(string(out), nested) {
		t.Errorf("nested record order: %s lacks %s", out, nested)
	}
	t.Logf("%s", out)
}

func tvTopLevelKeys(t *testing.T, b []byte) []string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", b)
	}
	var keys []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestEncodeShapeMismatch(t *testing.T) {
	schema := bigquery.Schema{{Name: "a", Type: bigquery.IntegerFieldType}, nil, {Name: "", Type: bigquery.StringFieldType}}
	cases := []struct {
		row  []bigquery.Value
		want string
	}{
		{nil, `{"a":null,"f1_":null,"_field_3":null}`},
		{[]bigquery.Value{int64(1), "x", "y", 2.5}, `{"a":1,"f1_":"x","_field_3":"y","f3_":2.5}`},
	}
	for _, c := range cases {
		out, err := Encode(schema, c.row, FormatObjects)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != c.want {
			t.Errorf("got %s want %s", out, c.want)
		}
	}
	if out, err := Encode(nil, nil, FormatObjects); err != nil || string(out) != `{}` {
		t.Errorf("empty row: %s, %v", out, err)
	}
}

func TestEncodeMarshalerError(t *testing.T) {
	schema := bigquery.Schema{{Name: "a", Type: "FUTURE_TYPE"}}
	out, err := Encode(schema, []bigquery.Value{tvBadMarshaler{}}, FormatObjects)
	if err == nil || out != nil {
		t.Fatalf("want error, got %s, %v", out, err)
	}
	dst := []byte("prefix")
	dst, err = Append(dst, schema, []bigquery.Value{tvBadMarshaler{}}, FormatObjects)
	if err == nil || string(dst) != "prefix" {
		t.Fatalf("Append on error: %q, %v", dst, err)
	}
}

// Encode must return a fresh slice each time: the pooled buffer is reused.
func TestEncodeNoAliasing(t *testing.T) {
	schema := bigquery.Schema{{Name: "s", Type: bigquery.StringFieldType}}
	a, _ := Encode(schema, []bigquery.Value{"first"}, FormatObjects)
	b, _ := Encode(schema, []bigquery.Value{"second"}, FormatObjects)
	if string(a) != `{"s":"first"}` || string(b) != `{"s":"second"}` {
		t.Fatalf("aliasing: %s %s", a, b)
	}
}

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(x float64, bits int) {
		var v any = x
		if bits == 32 {
			v = float32(x)
		}
		want, err := json.Marshal(v)
		if err != nil {
			return // non-finite
		}
		if got := encFloat(nil, x, bits); string(got) != string(want) {
			t.Errorf("appendFloat(%v, %d) = %s, encoding/json %s", x, bits, got, want)
		}
	}
	specials := []float64{0, 1, -1, 0.1, 1e-6, 9.99e-7, 1e20, 1e21, 1e-300, 5e-324, math.MaxFloat64, 123456789.125, 1e100}
	for _, x := range specials {
		check(x, 64)
		check(-x, 64)
		check(float64(float32(x)), 32)
	}
	for range 20000 {
		x := math.Float64frombits(r.Uint64())
		check(x, 64)
		check(float64(float32(x)), 32)
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", "q\"\\/", "\x00\x01\x08\x0c\x1f\x7f", "<>&", "\u2028\u2029", "a\xffb\xc0", "\xed\xa0\x80", "日本語 🎉", "\t\r\n"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		strs = append(strs, string(b))
	}
	for _, s := range strs {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(buf.String(), "\n")
		if got := string(encString(nil, s)); got != want {
			t.Errorf("appendString(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}

func TestEncDecimalMatchesNumericString(t *testing.T) {
	rats := []*big.Rat{new(big.Rat), big.NewRat(1, 3), big.NewRat(-2, 3), big.NewRat(1, 1<<62), big.NewRat(5, 7),
		big.NewRat(math.MaxInt64, 1), big.NewRat(math.MinInt64, 1), big.NewRat(math.MinInt64, 1<<40), big.NewRat(1, 1e18),
		tvRat("0.5"), tvRat("-0.5"), tvRat("0.0000000005"), tvRat("-0.0000000015"), tvRat("1e-38"), tvRat("1e-39"),
		tvRat("99999999999999999999999999999.999999999"), tvRat("-578960446186580977117854925043439539266.34992332820282019728792003956564819967"),
		tvRat("123.45"), tvRat("9223372036854775807.5"), tvRat("1/1024"), tvRat("3/390625")}
	r := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		num := r.Int64N(1<<62) - 1<<61
		if r.IntN(4) == 0 {
			num = r.Int64N(1_000_000) - 500_000
		}
		den := int64(1)
		for range r.IntN(12) {
			den *= []int64{2, 5, 10}[r.IntN(3)]
		}
		rats = append(rats, big.NewRat(num, den))
	}
	for _, x := range rats {
		if got, want := string(encDecimal(nil, x, bigquery.NumericScaleDigits)), `"`+shortest(bigquery.NumericString(x))+`"`; got != want {
			t.Errorf("NUMERIC %v: got %s want %s", x, got, want)
		}
		if got, want := string(encDecimal(nil, x, bigquery.BigNumericScaleDigits)), `"`+shortest(bigquery.BigNumericString(x))+`"`; got != want {
			t.Errorf("BIGNUMERIC %v: got %s want %s", x, got, want)
		}
	}
}

func TestCivilFastPathMatchesString(t *testing.T) {
	dates := []civil.Date{{Year: 1, Month: 1, Day: 1}, {Year: 2024, Month: 12, Day: 31}, {Year: 9999, Month: 12, Day: 31},
		{Year: 0, Month: 0, Day: 0}, {Year: -5, Month: 1, Day: 1}, {Year: 12345, Month: 1, Day: 1}, {Year: 2024, Month: 100, Day: 7}}
	times := []civil.Time{{}, {Hour: 23, Minute: 59, Second: 59, Nanosecond: 999_999_999}, {Hour: 1, Nanosecond: 1},
		{Hour: 100}, {Minute: -1}, {Nanosecond: 1_000_000_000}}
	for _, d := range dates {
		if got, want := string(encDate(nil, d)), `"`+d.String()+`"`; got != want {
			t.Errorf("date %+v: got %s want %s", d, got, want)
		}
		for _, tm := range times {
			dt := civil.DateTime{Date: d, Time: tm}
			if got, want := string(encDateTime(nil, dt)), `"`+dt.String()+`"`; got != want {
				t.Errorf("datetime %+v: got %s want %s", dt, got, want)
			}
		}
	}
	for _, tm := range times {
		if got, want := string(encTime(nil, tm)), `"`+tm.String()+`"`; got != want {
			t.Errorf("time %+v: got %s want %s", tm, got, want)
		}
	}
	if s := civil.DateTimeOf(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)).String(); s != "2024-01-02T03:04:05" {
		t.Errorf("civil.DateTime.String() = %q, expected ISO form with 'T'", s)
	}
}

func TestAppendRowReusesBuffer(t *testing.T) {
	schema, row := tvMixedSchema(), tvMixedRow()
	want, err := Encode(schema, row, FormatObjects)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(100, func() {
		buf, _ = Append(buf[:0], schema, row, FormatObjects)
	})
	if !bytes.Equal(buf, want) {
		t.Fatalf("Append differs from Encode:\n%s\n%s", buf, want)
	}
	t.Logf("Append allocs/op over the 20-column row: %v", allocs)
}

func BenchmarkEncode(b *testing.B) {
	schema, row := tvMixedSchema(), tvMixedRow()
	out, err := Encode(schema, row, FormatObjects)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(schema, row, FormatObjects); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeScalars is the same shape without the allocation-heavy
// NUMERIC/BIGNUMERIC/INTERVAL/JSON columns, to show the per-row floor.
func BenchmarkEncodeScalars(b *testing.B) {
	schema, row := tvMixedSchema(), tvMixedRow()
	for i, f := range schema {
		switch f.Type {
		case bigquery.NumericFieldType, bigquery.BigNumericFieldType, bigquery.IntervalFieldType, bigquery.JSONFieldType:
			row[i] = nil
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(schema, row, FormatObjects); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONMarshalMap is the naive baseline: a map through encoding/json
// (which also loses column order and big-integer precision).
func BenchmarkJSONMarshalMap(b *testing.B) {
	schema, row := tvMixedSchema(), tvMixedRow()
	b.ReportAllocs()
	for b.Loop() {
		m := make(map[string]bigquery.Value, len(schema))
		for i, f := range schema {
			m[f.Name] = row[i]
		}
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

// shortest is the client's decimal text without trailing fractional zeros,
// checked against big.Rat so it is the same number.
func shortest(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}
