// The shapes the views read. Each tool's result type is generated from its
// output schema (results.ts, checked by server's TestAppResultTypes); what
// is written here is built from them.

import type { Column, DryRunSQLResult, ExecuteSQLResult, GetQueryResultsResult, PreviewTableResult } from "./results";

export type { Column, DryRunSQLResult, GetTableSchemaResult, ToolResults } from "./results";

// The price a cost was computed at, with its source.
export type Price = DryRunSQLResult["price"];

// A value the server shortened to keep a page within its size limit.
export type CutCell = NonNullable<ExecuteSQLResult["cutCells"]>[number];

// Either is A or B as one shape: the fields both have, as they have them,
// and those only one has as optional.
type Either<A, B> = Pick<A | B, keyof A & keyof B> & Partial<Omit<A, keyof B>> & Partial<Omit<B, keyof A>>;

// Rows is what the table view reads: a query's rows (execute_sql,
// get_query_results) or a table's (preview_table).
export type Rows = Either<ExecuteSQLResult | GetQueryResultsResult, PreviewTableResult>;

export const NUMERIC_TYPES = new Set(["INT64", "INTEGER", "FLOAT64", "FLOAT", "NUMERIC", "BIGNUMERIC", "BIGDECIMAL", "DECIMAL"]);
export const TIME_TYPES = new Set(["DATE", "DATETIME", "TIMESTAMP"]);

export function isNumeric(c: Column): boolean {
  return NUMERIC_TYPES.has(c.type) && c.mode !== "REPEATED";
}

// typeName is a column's type as GoogleSQL writes it: ARRAY<…>, STRUCT<…>.
export function typeName(c: Column): string {
  let t = c.type === "RECORD" ? "STRUCT" : c.type;
  if (t === "STRUCT" && c.fields?.length) t = `STRUCT<${c.fields.map((f) => `${f.name} ${typeName(f)}`).join(", ")}>`;
  return c.mode === "REPEATED" ? `ARRAY<${t}>` : t;
}

// shortType is typeName without the fields of a STRUCT.
export function shortType(c: Column): string {
  const t = c.type === "RECORD" ? "STRUCT" : c.type;
  return c.mode === "REPEATED" ? `ARRAY<${t}>` : t;
}
