package schema

// Cutting schemas to what was asked: a wide or deeply nested table's full
// schema can be tens of kilobytes, which an agent pays for in context on
// every call. get_table_schema returns the columns asked for, to a depth,
// within a byte budget, and says what it left out and how to get it.

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// Schema budgets. A 100-column table with descriptions, nested fields
// included, fits in MaxSchemaBytes once its descriptions are left out
// (descriptions always go before columns do), because what an agent can
// infer is never sent: mode NULLABLE, BigQuery's default (18 bytes a
// column), and empty fields. View SQL beyond MaxViewQueryBytes is cut
// unless asked for whole.
const (
	MaxSchemaBytes    = 6000
	MaxViewQueryBytes = 2000
	DefaultMaxDepth   = 2
	// shortDescriptionRunes is what is left of each description when the
	// whole ones do not fit: about a sentence.
	shortDescriptionRunes = 80
)

// SchemaFormat is how get_table_schema writes the columns.
const (
	FormatJSON = "json"
	// FormatDDL is one line per column, "name TYPE" with STRUCT<…> and
	// ARRAY<…> spelled out and "-- description" appended: about a third of
	// the JSON's size.
	FormatDDL = "ddl"
)

// cutOptions is what get_table_schema's caller asked for.
type cutOptions struct {
	columns      []string
	maxDepth     int
	descriptions *bool
	format       string
	fullView     bool
}

func newCutOptions(in GetTableSchemaInput) (cutOptions, error) {
	o := cutOptions{columns: in.Columns, maxDepth: in.MaxDepth, descriptions: in.IncludeDescriptions, format: in.Format, fullView: in.FullViewQuery}
	switch {
	case o.maxDepth < 0:
		return o, bqerr.Invalid("maxDepth must be positive", "Leave maxDepth out for 2 levels of nested fields, or ask for more.")
	case o.maxDepth == 0:
		o.maxDepth = DefaultMaxDepth
	}
	switch o.format {
	case "":
		o.format = FormatJSON
	case FormatJSON, FormatDDL:
	default:
		return o, bqerr.Invalid(fmt.Sprintf("unknown format %q", bqerr.Truncate(o.format, 40)), "Use format json (default) or ddl.")
	}
	for _, p := range o.columns {
		if _, err := path.Match(strings.ToLower(p), ""); err != nil {
			return o, bqerr.Invalid(fmt.Sprintf("bad column pattern %q", bqerr.Truncate(p, 100)), "Use column names or patterns with * and ?, e.g. user_* .")
		}
	}
	return o, nil
}

// cut returns a copy of full limited to what o asks for and the budget.
func cut(full *TableSchema, o cutOptions) *TableSchema {
	out := *full
	var notes []string
	cols := make([]bqtype.Column, 0, len(full.Columns))
	for _, c := range full.Columns {
		if matchColumn(c.Name, o.columns) {
			cols = append(cols, c)
		}
	}
	if len(o.columns) > 0 {
		out.MatchedColumns = len(cols)
		if len(cols) == 0 {
			out.Hint = "No column matches columns; leave it out to see them all."
		}
	}
	deep := false
	cols = limitDepth(cols, o.maxDepth, 1, &deep)
	if deep {
		out.Truncated = true
		notes = append(notes, fmt.Sprintf("nested fields below depth %d left out (maxDepth to see them)", o.maxDepth))
	}
	// What an agent can infer is left out: BigQuery's default mode.
	cols = mapColumns(cols, func(c *bqtype.Column) {
		if c.Mode == "NULLABLE" {
			c.Mode = ""
		}
	})
	if o.descriptions != nil && !*o.descriptions {
		cols = mapDescriptions(cols, func(string) string { return "" })
	}
	if len(out.ViewQuery) > MaxViewQueryBytes && !o.fullView {
		out.ViewQuery = out.ViewQuery[:MaxViewQueryBytes]
		out.ViewQueryTruncated = true
		out.Truncated = true
		notes = append(notes, "view SQL cut (fullViewQuery to read it whole)")
	}
	out.Columns = cols
	render(&out, o.format)
	// An agent needs every column's name more than any description, even
	// when it asked for descriptions: over budget they are shortened, then
	// left out, before a single column is.
	if size(&out) > MaxSchemaBytes && hasDescriptions(cols) {
		note := "column descriptions shortened to fit"
		short := mapDescriptions(cols, func(d string) string { return bqerr.Truncate(d, shortDescriptionRunes) })
		out.Columns = short
		render(&out, o.format)
		cols = short
		if size(&out) > MaxSchemaBytes {
			note = "column descriptions left out to fit"
			cols = mapDescriptions(cols, func(string) string { return "" })
			out.Columns = cols
			render(&out, o.format)
		}
		out.Truncated = true
		notes = append(notes, note+" (includeDescriptions with fewer columns to read them whole)")
	}
	setHint := func(extra ...string) {
		if out.Truncated {
			out.Hint = "Cut to fit " + fmt.Sprint(MaxSchemaBytes) + " bytes: " + strings.Join(append(notes, extra...), "; ") + "."
		}
	}
	setHint()
	for keep := len(cols); keep > 1 && size(&out) > MaxSchemaBytes; {
		// Shrink in proportion, then one at a time: the hint grows too.
		keep = max(1, min(keep-1, keep*MaxSchemaBytes/size(&out)))
		out.Columns = cols[:keep]
		render(&out, o.format)
		out.OmittedColumns = len(cols) - keep
		out.Truncated = true
		setHint(fmt.Sprintf("%d of %d columns shown (ask for the others by name or pattern in columns, e.g. [\"%s\"])",
			keep, len(cols), cols[keep].Name))
	}
	return &out
}

// render writes the columns in the asked format: format ddl moves them into
// DDL and leaves Columns empty.
func render(s *TableSchema, format string) {
	if format != FormatDDL {
		return
	}
	if s.Columns == nil {
		return
	}
	var b strings.Builder
	for _, c := range s.Columns {
		b.WriteString(ddlLine(c))
		b.WriteByte('\n')
	}
	s.DDL = b.String()
	s.Columns = []bqtype.Column{}
}

func size(s *TableSchema) int {
	b, _ := json.Marshal(s)
	return len(b)
}

// matchColumn reports whether name matches one of patterns (all when none),
// case-insensitively as BigQuery compares column names.
func matchColumn(name string, patterns []string) bool {
	if len(patterns) == 0 {
		return true
	}
	n := strings.ToLower(name)
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToLower(strings.TrimSpace(p)), n); ok {
			return true
		}
	}
	return false
}

// limitDepth drops the fields of STRUCTs nested deeper than max levels,
// noting in cut that it did; their type still says STRUCT.
func limitDepth(cols []bqtype.Column, max, level int, cut *bool) []bqtype.Column {
	out := make([]bqtype.Column, len(cols))
	for i, c := range cols {
		if len(c.Fields) > 0 {
			if level >= max {
				c.Fields = nil
				*cut = true
			} else {
				c.Fields = limitDepth(c.Fields, max, level+1, cut)
			}
		}
		out[i] = c
	}
	return out
}

// mapColumns returns a copy of cols, nested fields included, with f applied
// to every column (the cached schema is shared: f changes only the copy).
func mapColumns(cols []bqtype.Column, f func(*bqtype.Column)) []bqtype.Column {
	out := make([]bqtype.Column, len(cols))
	for i, c := range cols {
		f(&c)
		if c.Fields != nil {
			c.Fields = mapColumns(c.Fields, f)
		}
		out[i] = c
	}
	return out
}

// mapDescriptions returns a copy of cols with every description replaced
// by f's result.
func mapDescriptions(cols []bqtype.Column, f func(string) string) []bqtype.Column {
	return mapColumns(cols, func(c *bqtype.Column) {
		if c.Description != "" {
			c.Description = f(c.Description)
		}
	})
}

func hasDescriptions(cols []bqtype.Column) bool {
	for _, c := range cols {
		if c.Description != "" || hasDescriptions(c.Fields) {
			return true
		}
	}
	return false
}

// ddlLine writes a column as in CREATE TABLE: `name TYPE [NOT NULL]
// [-- description]`, REPEATED as ARRAY<…>, STRUCT fields inline.
func ddlLine(c bqtype.Column) string {
	line := c.Name + " " + ddlType(c)
	if c.Mode == "REQUIRED" {
		line += " NOT NULL"
	}
	if c.Description != "" {
		line += " -- " + strings.Join(strings.Fields(c.Description), " ")
	}
	return line
}

func ddlType(c bqtype.Column) string {
	t := c.Type
	switch {
	case c.Type == "RANGE" && c.RangeElementType != "":
		t = "RANGE<" + c.RangeElementType + ">"
	case c.Type == "STRUCT" && len(c.Fields) > 0:
		parts := make([]string, len(c.Fields))
		for i, f := range c.Fields {
			parts[i] = f.Name + " " + ddlType(f)
			if f.Mode == "REQUIRED" {
				parts[i] += " NOT NULL"
			}
		}
		t = "STRUCT<" + strings.Join(parts, ", ") + ">"
	}
	if c.Mode == "REPEATED" {
		t = "ARRAY<" + t + ">"
	}
	return t
}
