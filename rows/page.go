package rows

import (
	"encoding/json"
	"fmt"
	"iter"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Caps bound the rows one call returns. They are the flags
// --default-max-rows, --max-rows and --max-result-bytes, under the same
// names from flag to code; every tool that returns rows takes them.
type Caps struct {
	// DefaultMaxRows is how many rows a call returns when it names no
	// maxRows. Zero: 100.
	DefaultMaxRows int
	// MaxRows is the most rows a call may ask for. Zero: 10000.
	MaxRows int
	// MaxResultBytes bounds the encoded rows of one call, each row counted
	// with one byte for its separator. Zero: 256 KiB.
	MaxResultBytes int
}

// WithDefaults returns l with its zero fields set to their documented
// defaults.
func (l Caps) WithDefaults() Caps {
	if l.DefaultMaxRows == 0 {
		l.DefaultMaxRows = 100
	}
	if l.MaxRows == 0 {
		l.MaxRows = 10000
	}
	if l.MaxResultBytes == 0 {
		l.MaxResultBytes = 256 << 10
	}
	return l
}

// Row is one row to encode: its values and the schema that gives them
// meaning.
type Row struct {
	Schema bigquery.Schema
	Values []bigquery.Value
}

// Page gathers encoded rows until a row cap or the byte cap says stop: what
// one call returns. Query results and table previews fill theirs the same
// way, so both stop, cut and warn alike.
type Page struct {
	format   Format
	maxRows  int
	maxBytes int
	rows     []json.RawMessage
	cuts     []CutCell
	size     int
	// byteCut is set when a row was left out because it would have passed
	// maxBytes.
	byteCut bool
}

// NewPage returns an empty page of at most maxRows rows in format f whose
// encoded rows, each with one separator byte, stay within maxResultBytes.
func NewPage(f Format, maxRows, maxResultBytes int) *Page {
	return &Page{format: f, maxRows: maxRows, maxBytes: maxResultBytes, rows: []json.RawMessage{}}
}

// Len is the number of rows in the page.
func (p *Page) Len() int { return len(p.rows) }

// Fill encodes the rows of seq into the page, in order, until the page is
// full or seq ends. A row that would pass the byte cap is left for the next
// page, unless it is the page's first: no page can hold it whole, so its
// largest values are cut (Fit) and the result reports them.
//
// An error seq yields ends Fill and is returned as it is (the caller may
// retry it and call Fill again: the rows added so far stay). An encoding
// error is an INTERNAL bqerr.Error.
func (p *Page) Fill(seq iter.Seq2[Row, error]) error {
	var err error
	seq(func(r Row, rerr error) bool {
		if rerr != nil {
			err = rerr
			return false
		}
		err = p.add(r)
		return err == nil && !p.full()
	})
	return err
}

func (p *Page) full() bool { return p.byteCut || len(p.rows) >= p.maxRows }

func (p *Page) add(r Row) error {
	enc, err := Encode(r.Schema, r.Values, p.format)
	if err != nil {
		return bqerr.New(bqerr.Internal, "a row could not be encoded").WithCause(err)
	}
	if p.size+len(enc)+1 > p.maxBytes {
		if len(p.rows) > 0 {
			p.byteCut = true
			return nil
		}
		if enc, p.cuts, err = Fit(r.Schema, r.Values, p.maxBytes-1, 0, p.format); err != nil {
			return bqerr.New(bqerr.Internal, "a row could not be encoded").WithCause(err)
		}
	}
	p.size += len(enc) + 1
	p.rows = append(p.rows, enc)
	return nil
}

// Result is a filled page in the fields every tool that returns rows
// shares.
type Result struct {
	// Rows are never nil, so an empty page is [] in JSON.
	Rows     []json.RawMessage
	RowCount int
	// Truncated is set when rows were left out or values shortened;
	// TruncatedBy says which limit: "maxRows" or "maxResultBytes" when rows
	// were left out (NextStartIndex is where to go on), else "cellBytes".
	Truncated      bool
	TruncatedBy    string
	NextStartIndex uint64
	// CutCells are the values Fit shortened, and Warning tells the agent
	// about them and how to read them whole; both empty when nothing was
	// cut.
	CutCells []CutCell
	Warning  string
}

// Result describes the page as rows start onwards of a result of total
// rows.
func (p *Page) Result(start, total uint64) Result {
	r := Result{Rows: p.rows, RowCount: len(p.rows), CutCells: p.cuts}
	if next := start + uint64(r.RowCount); next < total {
		r.Truncated, r.NextStartIndex, r.TruncatedBy = true, next, "maxRows"
		if p.byteCut {
			r.TruncatedBy = "maxResultBytes"
		}
	}
	if len(p.cuts) > 0 {
		r.Truncated = true
		if r.TruncatedBy == "" {
			r.TruncatedBy = "cellBytes"
		}
		c := p.cuts[0]
		r.Warning = fmt.Sprintf("The first row passed the server's limit of %d bytes per result, so %d value(s) were shortened (column %s: %d of %d bytes kept); cutCells lists them. Select part of a long value with SUBSTR, or fewer columns, to read the rest.",
			p.maxBytes, len(p.cuts), c.Column, c.KeptBytes, c.Bytes)
	}
	return r
}
