package rows

// Cutting oversized cells: the byte cap holds even for a page's first
// row. Later rows that would pass the cap are left for the next page, but
// the first row has no next page to go to: one cell of a few megabytes would
// otherwise reach the agent whole.

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"cloud.google.com/go/bigquery"
)

// CutCell names a value that was shortened to keep a page within the
// server's max-result-bytes.
type CutCell struct {
	// Row is the cut row's index in this result's rows.
	Row int `json:"row"`
	// Column is the cut column's name (its key in an object row).
	Column string `json:"column"`
	// Bytes is the value's full size: the length of a STRING or BYTES value,
	// or of the JSON of any other value.
	Bytes int `json:"bytes"`
	// KeptBytes is how much of it the row holds: a prefix of a STRING or
	// BYTES value; other values are replaced by null and keep nothing.
	KeptBytes int `json:"keptBytes"`
}

// Fit encodes a row whose JSON passes budget bytes so that it fits: the
// largest cells are cut to an equal share of what the small ones leave, so
// every column keeps as much as the budget allows. STRING and BYTES values
// keep a prefix; other values (JSON, STRUCT, ARRAY) become null. Each cut
// cell is reported with row set to rowIndex. The row is written in format
// f. Page calls it for a first row that alone passes the cap, so one
// oversized row is cut the same way wherever it comes from.
func Fit(schema bigquery.Schema, row []bigquery.Value, budget, rowIndex int, f Format) (json.RawMessage, []CutCell, error) {
	n := max(len(schema), len(row))
	keys := make([][]byte, n)
	names := make([]string, n)
	cells := make([][]byte, n)
	overhead := 2 + max(n-1, 0) // brackets and commas
	for i := range n {
		key := appendColumnKey(nil, schema, i)
		names[i] = columnName(key)
		if f != FormatCompact {
			keys[i] = key
		}
		overhead += len(keys[i])
		var err error
		if cells[i], err = appendCell(nil, schema, row, i); err != nil {
			return nil, nil, err
		}
	}
	share := cellShare(cells, budget-overhead)
	var cuts []CutCell
	open, closing := byte('{'), byte('}')
	if f == FormatCompact {
		open, closing = '[', ']'
	}
	out := []byte{open}
	for i := range n {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, keys[i]...)
		if len(cells[i]) <= share {
			out = append(out, cells[i]...)
			continue
		}
		cut := CutCell{Row: rowIndex, Column: names[i]}
		var v bigquery.Value
		if i < len(row) {
			v = row[i]
		}
		out, cut.Bytes, cut.KeptBytes = appendCut(out, fieldOf(schema, i), v, share, len(cells[i]))
		cuts = append(cuts, cut)
	}
	return append(out, closing), cuts, nil
}

// cellShare returns the size every cell may keep so that all of them fit in
// budget: cells smaller than the share keep everything, and what they leave
// is split evenly among the larger ones.
func cellShare(cells [][]byte, budget int) int {
	sizes := make([]int, len(cells))
	for i, c := range cells {
		sizes[i] = len(c)
	}
	slices.Sort(sizes)
	left := max(budget, 0)
	for i, size := range sizes {
		rest := len(sizes) - i
		if size*rest > left {
			return left / rest
		}
		left -= size
	}
	return left // everything fits; Fit is not called then
}

// appendCut writes a shortened value of at most share bytes where it can:
// the prefix of a STRING or BYTES value, null otherwise. It returns the
// value's full size and the size kept, as CutCell reports them.
func appendCut(dst []byte, f *bigquery.FieldSchema, v bigquery.Value, share, encodedSize int) (out []byte, full, kept int) {
	if f != nil && !f.Repeated {
		switch x := v.(type) {
		case string:
			if f.Type == bigquery.StringFieldType || f.Type == bigquery.GeographyFieldType {
				p := stringPrefix(x, share)
				return encString(dst, p), len(x), len(p)
			}
		case []byte:
			if f.Type == bigquery.BytesFieldType {
				k := max(share-2, 0) / 4 * 3 // base64 of k bytes is 4k/3 characters
				return encBytes(dst, x[:k]), len(x), k
			}
		}
	}
	return append(dst, "null"...), encodedSize, 0
}

// stringPrefix returns the longest prefix of s, cut at a character
// boundary, whose JSON string (as encString writes it) is at most limit
// bytes.
func stringPrefix(s string, limit int) string {
	size := 2 // the quotes
	for i := 0; i < len(s); {
		c := s[i]
		cost, width := 1, 1
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			cost = 2
		case c < 0x20:
			cost = 6
		case c >= utf8.RuneSelf:
			r, w := utf8.DecodeRuneInString(s[i:])
			cost, width = w, w
			if r == utf8.RuneError && w == 1 || r == '\u2028' || r == '\u2029' {
				cost = 6
			}
		}
		if size+cost > limit {
			return s[:i]
		}
		size += cost
		i += width
	}
	return s
}

func fieldOf(schema bigquery.Schema, i int) *bigquery.FieldSchema {
	if i < len(schema) {
		return schema[i]
	}
	return nil
}

// columnName reads the column name back from its encoded key (`"name":`),
// so cut cells are named exactly as the row names them.
func columnName(key []byte) string {
	var name string
	_ = json.Unmarshal(key[:len(key)-1], &name)
	return name
}
