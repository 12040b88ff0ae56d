package rows

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"cloud.google.com/go/bigquery"
)

// TestCompactRowMatchesObjectRow: a compact row holds the same values as the
// object row, in schema order, with nested STRUCTs still objects; it is
// smaller by the column names it no longer repeats.
func TestCompactRowMatchesObjectRow(t *testing.T) {
	schema, row := tvMixedSchema(), tvMixedRow()
	obj, err := Encode(schema, row, FormatObjects)
	if err != nil {
		t.Fatal(err)
	}
	arr, err := Encode(schema, row, FormatCompact)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	var a []json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(arr, &a); err != nil {
		t.Fatalf("compact row is not a JSON array: %v\n%s", err, arr)
	}
	if len(a) != len(schema) {
		t.Fatalf("compact row has %d values for %d columns", len(a), len(schema))
	}
	names := 0
	for i, f := range schema {
		if string(a[i]) != string(m[f.Name]) {
			t.Errorf("column %s: compact %s, object %s", f.Name, a[i], m[f.Name])
		}
		names += len(f.Name) + 3 // "name":
		if f.Type == bigquery.RecordFieldType && !f.Repeated && string(a[i]) != "null" && !strings.HasPrefix(string(a[i]), "{") {
			t.Errorf("STRUCT %s is not an object in a compact row: %s", f.Name, a[i])
		}
	}
	if len(obj)-len(arr) != names {
		t.Errorf("compact row is %d bytes, object row %d: want exactly the %d bytes of keys saved", len(arr), len(obj), names)
	}
	if enc, _ := Append([]byte("x"), schema, row, FormatCompact); string(enc) != "x"+string(arr) {
		t.Error("Append(compact) does not append what Encode(compact) returns")
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatCompact, "compact": FormatCompact, "objects": FormatObjects} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("csv"); err == nil {
		t.Error("ParseFormat(csv) accepted")
	}
}

// TestFitCompact: the byte cap holds for a compact first row too, and
// cut cells are named by column although the row carries no names.
func TestFitCompact(t *testing.T) {
	const budget = 4096
	schema := bigquery.Schema{{Name: "id", Type: bigquery.IntegerFieldType}, {Name: "body", Type: bigquery.StringFieldType}}
	row := []bigquery.Value{int64(1), strings.Repeat("y", 100_000)}
	enc, cuts, err := Fit(schema, row, budget, 0, FormatCompact)
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	if err := json.Unmarshal(enc, &got); err != nil || len(enc) > budget || len(enc) < budget-16 {
		t.Fatalf("row %d bytes (budget %d), err %v", len(enc), budget, err)
	}
	if got[0] != 1.0 || !strings.HasPrefix(row[1].(string), got[1].(string)) {
		t.Errorf("values changed: %v", got[:1])
	}
	want := []CutCell{{Row: 0, Column: "body", Bytes: 100_000, KeptBytes: len(got[1].(string))}}
	if !reflect.DeepEqual(cuts, want) {
		t.Errorf("cuts = %+v, want %+v", cuts, want)
	}
}
