package export

import (
	"bufio"
	"encoding/json"
	"io"
	"math/big"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/rows"
)

// TestCSVCellIsTheJSONValueUnquoted checks the CSV cell's short cuts
// against what they stand for: the JSON value of package rows with a
// string's quotes taken off by decoding it.
func TestCSVCellIsTheJSONValueUnquoted(t *testing.T) {
	schema := bigquery.Schema{
		{Name: "s", Type: bigquery.StringFieldType},
		{Name: "g", Type: bigquery.GeographyFieldType},
		{Name: "j", Type: bigquery.JSONFieldType},
		{Name: "r", Type: bigquery.StringFieldType, Repeated: true},
		{Name: "i", Type: bigquery.IntegerFieldType},
		{Name: "n", Type: bigquery.NumericFieldType},
		{Name: "b", Type: bigquery.BytesFieldType},
		{Name: "t", Type: bigquery.TimestampFieldType},
	}
	strs := []string{"", "plain", "a, \"quoted\"\r\nline", "<>&", "tab\tnul\x00", "\u2028\u2029", "é日本", "bad\xffutf8\xc3", "\\", `{"a":1}`}
	var cases [][]bigquery.Value
	for _, s := range strs {
		cases = append(cases, []bigquery.Value{s, s, s, []bigquery.Value{s}, int64(1) << 60, big.NewRat(-7, 3), []byte(s), time.Unix(1, 5000).UTC()})
	}
	cases = append(cases, make([]bigquery.Value, len(schema)))
	e := newCSVEncoder(bufio.NewWriter(io.Discard))
	if err := e.header(schema); err != nil {
		t.Fatal(err)
	}
	for _, row := range cases {
		for i, v := range row {
			got, err := e.cell(i, v)
			if err != nil {
				t.Fatal(err)
			}
			b, err := rows.Append(nil, bigquery.Schema{schema[i]}, []bigquery.Value{v}, rows.FormatCompact)
			if err != nil {
				t.Fatal(err)
			}
			raw, want := b[1:len(b)-1], ""
			switch {
			case string(raw) == "null":
			case raw[0] == '"':
				if err := json.Unmarshal(raw, &want); err != nil {
					t.Fatal(err)
				}
			default:
				want = string(raw)
			}
			if got != want {
				t.Errorf("%s %q: cell %q, want %q", schema[i].Name, v, got, want)
			}
		}
	}
}
