// Package rows turns BigQuery result rows into the JSON agents read, under a
// byte cap. Every tool that returns rows (execute_sql, get_query_results,
// preview_table) and every writer of rows to files goes through it, so a
// value reads the same wherever it comes from, and a page is capped, cut
// and warned about the same way.
//
// It owns three things:
//
//   - The value rules (Encode, Append): one row in FormatCompact (a JSON
//     array in schema order, the default: names are said once, in the
//     schema) or FormatObjects (an object keyed by column name, in column
//     order; a JSON Lines file is rows in this format, one per line).
//   - The page (Page, Caps): rows added until --max-rows or
//     --max-result-bytes says stop, a first row that alone passes the byte
//     cap cut to fit (Fit, CutCell), and the fields that tell the agent what
//     was left out (Result).
//   - Rows as the REST service sends them (SchemaFromREST, ValuesFromREST),
//     converted to the values the client library produces, so the encoder
//     sees one set of Go types.
//
// The value rules keep BigQuery's meaning through JSON clients that read
// every number as a double:
//
//   - NULL is null; a NULL ARRAY is [] (BigQuery does not tell them apart).
//   - INT64 is a number when |n| <= 2^53, else a decimal string, so no
//     client rounds it.
//   - FLOAT64 is the shortest number that reads back exactly; NaN, Infinity
//     and -Infinity, which JSON cannot hold, are strings.
//   - NUMERIC and BIGNUMERIC are strings of the exact decimal, without
//     trailing zeros ("10.5", "3").
//   - BOOL is true or false; STRING and GEOGRAPHY are strings, not
//     HTML-escaped, with invalid UTF-8 replaced by U+FFFD.
//   - BYTES are standard base64 strings.
//   - TIMESTAMP is an RFC 3339 string in UTC with only the fractional digits
//     needed; DATE, TIME and DATETIME are the civil forms ("2024-03-01",
//     "15:04:05", "2024-03-01T15:04:05", with nine fractional digits when
//     there are any).
//   - JSON is embedded as JSON (compacted) when it is valid, else a string.
//   - STRUCT is an object in field order in either format (unnamed fields
//     "_field_1", …); ARRAY is an array; RANGE is {"start":…,"end":…} with
//     null for an unbounded end; INTERVAL is its canonical string.
//   - A value beyond the schema is kept under BigQuery's anonymous column
//     name ("f5_") and encoded by its Go type.
//
// The package knows BigQuery's types and nothing of MCP, tools or requests.
package rows
