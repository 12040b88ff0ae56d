// The result shapes the server's tools return (docs/tools.md).

export interface Column {
  name: string;
  type: string;
  mode?: string;
  description?: string;
  fields?: Column[];
}

export interface CutCell {
  row: number;
  column: string;
  bytes: number;
  keptBytes?: number;
}

// execute_sql, get_query_results and preview_table.
export interface Rows {
  jobId?: string;
  table?: string;
  location?: string;
  jobComplete?: boolean;
  state?: string;
  statementType?: string;
  schema: Column[];
  rows: (unknown[] | Record<string, unknown>)[];
  rowCount: number;
  totalRows: number;
  truncated: boolean;
  truncatedBy?: string;
  cutCells?: CutCell[];
  nextStartIndex?: number;
  bytesProcessed?: number;
  bytesBilled?: number;
  cacheHit?: boolean;
  affectedRows?: number;
  durationMs?: number;
  hint?: string;
  warning?: string;
  incomplete?: boolean;
}

// get_table_schema.
export interface TableSchema {
  table: string;
  type: string;
  description?: string;
  location?: string;
  columns: Column[];
  partitioning?: { type: string; field?: string; expirationMs?: number; requireFilter?: boolean; rangeStart?: number; rangeEnd?: number; rangeInterval?: number };
  clustering?: string[];
  numRows: number;
  numBytes: number;
  created?: string;
  lastModified?: string;
  expires?: string;
  labels?: Record<string, string>;
  viewQuery?: string;
  ddl?: string;
  truncated?: boolean;
  omittedColumns?: number;
  hint?: string;
  stale?: boolean;
  cacheAgeSeconds?: number;
}

// dry_run_sql.
export interface DryRun {
  valid: boolean;
  statementType: string;
  bytesProcessed: number;
  estimatedCostUSD: number;
  pricePerTiBUSD: number;
  referencedTables: string[];
  schema: Column[];
  schemaTruncated?: boolean;
  wouldExecute: boolean;
  location?: string;
  note?: string;
}

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
