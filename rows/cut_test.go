package rows

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"cloud.google.com/go/bigquery"
)

// TestFitCutsTheLargestCells: a row with two 2 MB strings fits a 256 KiB
// budget; the small columns stay whole, the two strings keep equal prefixes,
// and both cuts are reported with their full size.
func TestFitCutsTheLargestCells(t *testing.T) {
	const budget = 256 << 10
	big := strings.Repeat("x", 2<<20)
	schema := bigquery.Schema{
		{Name: "id", Type: bigquery.IntegerFieldType},
		{Name: "body", Type: bigquery.StringFieldType},
		{Name: "title", Type: bigquery.StringFieldType},
		{Name: "note", Type: bigquery.StringFieldType},
	}
	row := []bigquery.Value{int64(7), big, big, "short"}
	enc, cuts, err := Fit(schema, row, budget, 0, FormatObjects)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) > budget || len(enc) < budget-16 {
		t.Errorf("row is %d bytes, want just under %d", len(enc), budget)
	}
	var got map[string]any
	if err := json.Unmarshal(enc, &got); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	if got["id"] != 7.0 || got["note"] != "short" {
		t.Errorf("small columns changed: id=%v note=%v", got["id"], got["note"])
	}
	body, title := got["body"].(string), got["title"].(string)
	if !strings.HasPrefix(big, body) || !strings.HasPrefix(big, title) || len(body) != len(title) || len(body) < 100<<10 {
		t.Errorf("body and title kept %d and %d bytes, want equal prefixes sharing the budget", len(body), len(title))
	}
	want := []CutCell{{Row: 0, Column: "body", Bytes: 2 << 20, KeptBytes: len(body)}, {Row: 0, Column: "title", Bytes: 2 << 20, KeptBytes: len(title)}}
	if len(cuts) != 2 || cuts[0] != want[0] || cuts[1] != want[1] {
		t.Errorf("cuts = %+v, want %+v", cuts, want)
	}
}

// TestFitOtherTypes: BYTES keep a prefix that is still valid base64,
// values that cannot be cut meaningfully (JSON, STRUCT, ARRAY) become null,
// anonymous columns are named as the row names them, and escaping or
// multi-byte text never pushes the row past the budget.
func TestFitOtherTypes(t *testing.T) {
	const budget = 4096
	blob := make([]byte, 100_000)
	for i := range blob {
		blob[i] = byte(i)
	}
	schema := bigquery.Schema{
		{Name: "blob", Type: bigquery.BytesFieldType},
		{Name: "doc", Type: bigquery.JSONFieldType},
		{Name: "tags", Type: bigquery.StringFieldType, Repeated: true},
		{Name: "quotes", Type: bigquery.StringFieldType},
		{Name: "accents", Type: bigquery.StringFieldType},
		{Name: "", Type: bigquery.StringFieldType},
		nil,
	}
	row := []bigquery.Value{
		blob,
		`{"k":"` + strings.Repeat("v", 50_000) + `"}`,
		[]bigquery.Value{strings.Repeat("t", 50_000)},
		strings.Repeat(`"\`, 20_000),
		strings.Repeat("é\u2028\x01", 20_000),
		strings.Repeat("a", 50_000),
		strings.Repeat("b", 50_000),
	}
	enc, cuts, err := Fit(schema, row, budget, 3, FormatObjects)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) > budget {
		t.Errorf("row is %d bytes, over the budget of %d", len(enc), budget)
	}
	var got map[string]any
	if err := json.Unmarshal(enc, &got); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, enc)
	}
	b, err := base64.StdEncoding.DecodeString(got["blob"].(string))
	if err != nil || len(b) == 0 || string(b) != string(blob[:len(b)]) {
		t.Errorf("blob: %d bytes kept, err %v; want a non-empty prefix", len(b), err)
	}
	for _, k := range []string{"doc", "tags", "f6_"} {
		if v, ok := got[k]; !ok || v != nil {
			t.Errorf("%s = %v, want null", k, v)
		}
	}
	for _, k := range []string{"quotes", "accents", "_field_6"} {
		s, ok := got[k].(string)
		if !ok || s == "" || !utf8.ValidString(s) {
			t.Errorf("%s = %q, want a non-empty valid prefix", k, got[k])
		}
	}
	names := map[string]CutCell{}
	for _, c := range cuts {
		if c.Row != 3 {
			t.Errorf("cut %+v: row %d, want 3", c, c.Row)
		}
		names[c.Column] = c
	}
	if len(names) != 7 {
		t.Errorf("cuts = %+v, want all seven columns", cuts)
	}
	if c := names["blob"]; c.Bytes != len(blob) || c.KeptBytes != len(b) {
		t.Errorf("blob cut = %+v, want bytes %d kept %d", c, len(blob), len(b))
	}
	if c := names["doc"]; c.KeptBytes != 0 || c.Bytes < 50_000 {
		t.Errorf("doc cut = %+v, want its JSON size and nothing kept", c)
	}
}

// TestStringPrefixFitsEncoding: the prefix is the longest whose JSON string
// fits the limit, whatever the text needs escaped.
func TestStringPrefixFitsEncoding(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"a", "é", "日", "🎉", `"`, `\`, "\n", "\x01", "\u2028", "\xff", "<"}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s, limit := b.String(), 2+r.IntN(60)
		p := stringPrefix(s, limit)
		if !strings.HasPrefix(s, p) {
			t.Fatalf("stringPrefix(%q, %d) = %q, not a prefix", s, limit, p)
		}
		if n := len(encString(nil, p)); n > limit {
			t.Fatalf("stringPrefix(%q, %d) = %q encodes to %d bytes", s, limit, p, n)
		}
		if p != s {
			_, w := utf8.DecodeRuneInString(s[len(p):])
			if n := len(encString(nil, s[:len(p)+w])); n <= limit {
				t.Fatalf("stringPrefix(%q, %d) = %q, but one more character still fits (%d bytes)", s, limit, p, n)
			}
		}
	}
}
