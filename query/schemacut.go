package query

import (
	"encoding/json"
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// maxDryRunSchemaBytes bounds the result schema a dry run reports: a
// SELECT * over a wide table would otherwise answer with tens of kilobytes
// the agent did not ask for.
const maxDryRunSchemaBytes = 4000

// cutSchema keeps the leading columns of a result schema whose JSON fits
// limit bytes, with nested fields below the second level left out. It
// returns the columns kept and how many were left out; nested is true
// when nested fields were dropped.
func cutSchema(cols []bqtype.Column, limit int) (kept []bqtype.Column, omitted int, nested bool) {
	size := func(c []bqtype.Column) int { b, _ := json.Marshal(c); return len(b) }
	if size(cols) <= limit {
		return cols, 0, false
	}
	kept = make([]bqtype.Column, len(cols))
	for i, c := range cols {
		for j := range c.Fields {
			if len(c.Fields[j].Fields) > 0 {
				f := c.Fields
				c.Fields = append([]bqtype.Column(nil), f...)
				c.Fields[j].Fields, nested = nil, true
			}
		}
		kept[i] = c
	}
	n := len(kept)
	for n > 1 && size(kept[:n]) > limit {
		n = max(1, min(n-1, n*limit/size(kept[:n])))
	}
	return kept[:n], len(cols) - n, nested
}

// schemaCutNote tells the agent what a dry run left out of its schema.
func schemaCutNote(kept, omitted int, nested bool) string {
	s := ""
	if omitted > 0 {
		s = fmt.Sprintf("The result schema was cut to its first %d of %d columns to stay small; select fewer columns, or read a table's columns with get_table_schema.", kept, kept+omitted)
	}
	if nested {
		s += " Nested fields below the second level were left out."
	}
	return s
}
