package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"unicode/utf8"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/rows"
)

// rowEncoder writes rows in one file format.
type rowEncoder interface {
	// header starts the file (CSV's column names); called once, before
	// the first row or for an empty result.
	header(bigquery.Schema) error
	row(bigquery.Schema, []bigquery.Value) error
	flush() error
}

// jsonlEncoder writes JSON Lines: one object per row, keyed by column name
// in column order, with package rows' value rules, so every value reads as
// execute_sql returns it (format objects).
type jsonlEncoder struct {
	w   *bufio.Writer
	buf []byte
}

func (e *jsonlEncoder) header(bigquery.Schema) error { return nil }

func (e *jsonlEncoder) row(schema bigquery.Schema, row []bigquery.Value) error {
	var err error
	if e.buf, err = rows.Append(e.buf[:0], schema, row, rows.FormatObjects); err != nil {
		return err
	}
	e.buf = append(e.buf, '\n')
	_, err = e.w.Write(e.buf)
	return err
}

func (e *jsonlEncoder) flush() error { return nil }

// csvEncoder writes RFC 4180 CSV: a header of column names, CRLF line
// ends, fields quoted when they must be. A cell is execute_sql's JSON value
// with a string's quotes taken off: digits of INT64 and NUMERIC exactly,
// RFC 3339 timestamps, base64 BYTES; NULL is an empty field; STRUCT, ARRAY,
// RANGE and JSON values are their JSON text.
type csvEncoder struct {
	w      *csv.Writer
	cells  []string
	single []bigquery.Schema // a one-column schema per column, for rows.Append
	one    []bigquery.Value  // the one-cell row given to rows.Append
	buf    []byte
}

func newCSVEncoder(w *bufio.Writer) *csvEncoder {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	return &csvEncoder{w: cw, one: make([]bigquery.Value, 1)}
}

func (e *csvEncoder) header(schema bigquery.Schema) error {
	e.single = make([]bigquery.Schema, len(schema))
	for i, f := range schema {
		e.single[i] = bigquery.Schema{f}
	}
	return e.w.Write(columns(schema))
}

func (e *csvEncoder) row(schema bigquery.Schema, row []bigquery.Value) error {
	e.cells = e.cells[:0]
	for i := range schema {
		var v bigquery.Value
		if i < len(row) {
			v = row[i]
		}
		s, err := e.cell(i, v)
		if err != nil {
			return err
		}
		e.cells = append(e.cells, s)
	}
	return e.w.Write(e.cells)
}

// cell is one value's CSV text, through the same encoder as JSON Lines.
// A STRING's text is the string itself: its JSON string decodes back to it
// when it is valid UTF-8 (encoding then decoding it again was a fifth of a
// CSV export's CPU). A quoted value without an escape is its bytes between
// the quotes; only one with escapes is decoded.
func (e *csvEncoder) cell(i int, v bigquery.Value) (string, error) {
	if s, ok := v.(string); ok && plainString(e.single[i][0]) && utf8.ValidString(s) {
		return s, nil
	}
	e.one[0] = v
	var err error
	e.buf, err = rows.Append(e.buf[:0], e.single[i], e.one, rows.FormatCompact)
	e.one[0] = nil
	if err != nil {
		return "", err
	}
	raw := e.buf[1 : len(e.buf)-1] // [value]
	switch {
	case string(raw) == "null":
		return "", nil
	case len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0:
		return string(raw[1 : len(raw)-1]), nil
	case len(raw) > 0 && raw[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	return string(raw), nil
}

// plainString reports whether package rows writes f's string values as
// JSON strings of their text (STRING and GEOGRAPHY, not repeated).
func plainString(f *bigquery.FieldSchema) bool {
	return f != nil && !f.Repeated && (f.Type == bigquery.StringFieldType || f.Type == bigquery.GeographyFieldType)
}

func (e *csvEncoder) flush() error {
	e.w.Flush()
	return e.w.Error()
}
