package export

import (
	"bufio"
	"encoding/csv"
	"encoding/json"

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
	buf    []byte
}

func newCSVEncoder(w *bufio.Writer) *csvEncoder {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	return &csvEncoder{w: cw}
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
func (e *csvEncoder) cell(i int, v bigquery.Value) (string, error) {
	var err error
	if e.buf, err = rows.Append(e.buf[:0], e.single[i], []bigquery.Value{v}, rows.FormatCompact); err != nil {
		return "", err
	}
	raw := e.buf[1 : len(e.buf)-1] // [value]
	switch {
	case string(raw) == "null":
		return "", nil
	case len(raw) > 0 && raw[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	return string(raw), nil
}

func (e *csvEncoder) flush() error {
	e.w.Flush()
	return e.w.Error()
}
