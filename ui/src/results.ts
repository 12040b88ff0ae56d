// The results of the tools the app shows, generated from their output
// schemas (docs/tools.md) by server/appresults_test.go: do not edit. After a
// tool's result changes, run `go test ./server -run TestAppResultTypes -update`
// and `make ui`.

// A column of a result or a table (bqtype.Column); a STRUCT's fields are columns too.
export interface Column {
  defaultValue?: string;
  description?: string;
  // Sub-columns of a STRUCT, each shaped like this column.
  fields?: Column[];
  maxLength?: number;
  // REQUIRED or REPEATED (an ARRAY of type); omitted means NULLABLE, BigQuery's default.
  mode?: string;
  name: string;
  policyTags?: string[];
  precision?: number;
  rangeElementType?: string;
  scale?: number;
  // GoogleSQL type: STRING, INT64, FLOAT64, NUMERIC, BIGNUMERIC, BOOL, BYTES, DATE, DATETIME, TIME, TIMESTAMP, GEOGRAPHY, JSON, INTERVAL, RANGE or STRUCT.
  type: string;
}

// execute_sql's result.
export interface ExecuteSQLResult {
  jobId: string;
  location?: string;
  jobComplete: boolean;
  state?: string;
  elapsedMs?: number;
  hint?: string;
  statementType?: string;
  schema: Column[] | null;
  rows: (unknown[] | Record<string, unknown>)[] | null;
  format?: string;
  rowCount: number;
  totalRows: number;
  truncated: boolean;
  truncatedBy?: string;
  // Values shortened because the first row alone passed the server's result size limit: a STRING or BYTES value keeps a prefix of keptBytes, any other value is null. Select part of a long value (SUBSTR) to read the rest.
  cutCells?: {
    row: number;
    column: string;
    bytes: number;
    keptBytes: number;
  }[];
  nextStartIndex?: number;
  bytesProcessed: number;
  bytesBilled?: number;
  cacheHit: boolean;
  // What the job cost at price: bytesBilled on demand, slotMs under editions billing. Absent while unknown.
  costUSD?: number;
  // The job's slot-milliseconds (totalSlotMs), when BigQuery gave them.
  slotMs?: number;
  // The price costUSD was computed at: billing, location, perTiBUSD or slotHourUSD, and its source.
  price?: {
    billing: string;
    location?: string;
    perTiBUSD?: number;
    slotHourUSD?: number;
    source: string;
  };
  // The dry-run estimate, when one preceded the job: compare bytesBilled (clustering and the cache bill less).
  estimateBytes?: number;
  affectedRows?: number;
  durationMs: number;
  incomplete?: boolean;
  warning?: string;
}

// get_query_results's result.
export interface GetQueryResultsResult {
  jobId: string;
  location?: string;
  jobComplete: boolean;
  state?: string;
  elapsedMs?: number;
  hint?: string;
  statementType?: string;
  schema: Column[] | null;
  rows: (unknown[] | Record<string, unknown>)[] | null;
  format?: string;
  rowCount: number;
  totalRows: number;
  truncated: boolean;
  truncatedBy?: string;
  // Values shortened because the first row alone passed the server's result size limit: a STRING or BYTES value keeps a prefix of keptBytes, any other value is null. Select part of a long value (SUBSTR) to read the rest.
  cutCells?: {
    row: number;
    column: string;
    bytes: number;
    keptBytes: number;
  }[];
  nextStartIndex?: number;
  bytesProcessed: number;
  bytesBilled?: number;
  cacheHit: boolean;
  // What the job cost at price: bytesBilled on demand, slotMs under editions billing. Absent while unknown.
  costUSD?: number;
  // The job's slot-milliseconds (totalSlotMs), when BigQuery gave them.
  slotMs?: number;
  // The price costUSD was computed at: billing, location, perTiBUSD or slotHourUSD, and its source.
  price?: {
    billing: string;
    location?: string;
    perTiBUSD?: number;
    slotHourUSD?: number;
    source: string;
  };
  // The dry-run estimate, when one preceded the job: compare bytesBilled (clustering and the cache bill less).
  estimateBytes?: number;
  affectedRows?: number;
  durationMs: number;
  incomplete?: boolean;
  warning?: string;
}

// preview_table's result.
export interface PreviewTableResult {
  table: string;
  schema: Column[] | null;
  rows: (unknown[] | Record<string, unknown>)[] | null;
  rowCount: number;
  totalRows: number;
  truncated: boolean;
  truncatedBy?: string;
  nextStartIndex?: number;
  cutCells?: {
    row: number;
    column: string;
    bytes: number;
    keptBytes: number;
  }[];
  warning?: string;
}

// get_table_schema's result.
export interface GetTableSchemaResult {
  table: string;
  type: string;
  description?: string;
  location?: string;
  // Name and type of each; mode omitted means NULLABLE; empty fields are left out.
  columns: Column[] | null;
  // Declared primary key columns (BigQuery does not enforce keys); omitted when none.
  primaryKey?: string[];
  // Declared foreign keys: columns join the table references (project.dataset.table) on referencedColumns, in order. Join on declared keys rather than on names that look alike; omitted when none.
  foreignKeys?: {
    columns: string[] | null;
    references: string;
    referencedColumns: string[] | null;
  }[];
  partitioning?: {
    type: string;
    field?: string;
    expirationMs?: number;
    requireFilter?: boolean;
    rangeStart?: number;
    rangeEnd?: number;
    rangeInterval?: number;
  };
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
  matchedColumns?: number;
  viewQueryTruncated?: boolean;
  hint?: string;
  stale?: boolean;
  cacheAgeSeconds?: number;
  staleReason?: string;
}

// dry_run_sql's result.
export interface DryRunSQLResult {
  valid: boolean;
  statementType: string;
  bytesProcessed: number;
  // On-demand estimate at price. 0 under editions billing: then the cost is known only after the run.
  estimatedCostUSD: number;
  pricePerTiBUSD: number;
  // The price used: billing (on-demand or editions), location, perTiBUSD or slotHourUSD, and source: the server's price table and its date, or the flag that set it.
  price: {
    billing: string;
    location?: string;
    perTiBUSD?: number;
    slotHourUSD?: number;
    source: string;
  };
  referencedTables: string[] | null;
  schema: Column[] | null;
  schemaTruncated?: boolean;
  wouldExecute: boolean;
  location?: string;
  note?: string;
  // Changes that would read less: partition filters with what each reads (readsBytes), clustering columns; method says where figures come from.
  advice?: {
    change: string;
    readsBytes?: number;
    method?: string;
  }[];
}

// query_metrics's result.
export interface QueryMetricsResult {
  jobId: string;
  location?: string;
  jobComplete: boolean;
  state?: string;
  elapsedMs?: number;
  hint?: string;
  statementType?: string;
  schema: Column[] | null;
  rows: (unknown[] | Record<string, unknown>)[] | null;
  format?: string;
  rowCount: number;
  totalRows: number;
  truncated: boolean;
  truncatedBy?: string;
  // Values shortened because the first row alone passed the server's result size limit: a STRING or BYTES value keeps a prefix of keptBytes, any other value is null. Select part of a long value (SUBSTR) to read the rest.
  cutCells?: {
    row: number;
    column: string;
    bytes: number;
    keptBytes: number;
  }[];
  nextStartIndex?: number;
  bytesProcessed: number;
  bytesBilled?: number;
  cacheHit: boolean;
  // What the job cost at price: bytesBilled on demand, slotMs under editions billing. Absent while unknown.
  costUSD?: number;
  // The job's slot-milliseconds (totalSlotMs), when BigQuery gave them.
  slotMs?: number;
  // The price costUSD was computed at: billing, location, perTiBUSD or slotHourUSD, and its source.
  price?: {
    billing: string;
    location?: string;
    perTiBUSD?: number;
    slotHourUSD?: number;
    source: string;
  };
  // The dry-run estimate, when one preceded the job: compare bytesBilled (clustering and the cache bill less).
  estimateBytes?: number;
  affectedRows?: number;
  durationMs: number;
  incomplete?: boolean;
  warning?: string;
  dryRun?: {
    valid: boolean;
    statementType: string;
    bytesProcessed: number;
    // On-demand estimate at price. 0 under editions billing: then the cost is known only after the run.
    estimatedCostUSD: number;
    pricePerTiBUSD: number;
    // The price used: billing (on-demand or editions), location, perTiBUSD or slotHourUSD, and source: the server's price table and its date, or the flag that set it.
    price: {
      billing: string;
      location?: string;
      perTiBUSD?: number;
      slotHourUSD?: number;
      source: string;
    };
    referencedTables: string[] | null;
    schema: Column[] | null;
    schemaTruncated?: boolean;
    wouldExecute: boolean;
    location?: string;
    note?: string;
    // Changes that would read less: partition filters with what each reads (readsBytes), clustering columns; method says where figures come from.
    advice?: {
      change: string;
      readsBytes?: number;
      method?: string;
    }[];
  };
  sql: string;
  metrics: {
    name: string;
    type: string;
    label?: string;
    certified?: boolean;
    description?: string;
    // A derived or ratio metric's formula over its inputs.
    expr?: string;
    inputs?: string[];
    // model.measure: agg(expr).
    measures?: string[];
    tables?: string[];
    filters?: string[];
  }[] | null;
  manifest: {
    sha256: string;
    generatedAt?: string;
  };
}

// usage's result.
export interface UsageResult {
  session: {
    jobs: number;
    bytesProcessed: number;
    bytesBilled: number;
  };
  today: {
    jobs: number;
    bytesProcessed: number;
    bytesBilled: number;
  };
  sessionLimitBytes?: number;
  dayLimitBytes?: number;
  reservedBytes: number;
  leftBytes?: number;
  dayLimitUSD?: number;
  // What running queries hold of the dollar budget: their estimates, priced (absent without one).
  reservedUSD?: number;
  leftUSD?: number;
  // What this session's jobs cost, each at its own price (as its own answer gives it), summed as each settled; running queries are not in it. Jobs of unknown cost are left out: note says how many.
  sessionCostUSD: number;
  // The same for the UTC day's jobs: with a dollar budget, todayCostUSD + reservedUSD + leftUSD = dayLimitUSD.
  todayCostUSD: number;
  pricePerTiBUSD: number;
  // The price at the server's --location (location absent when it has none): what estimates are held at; each job is priced at its own location (lastJobs). billing, perTiBUSD or slotHourUSD, source.
  price: {
    billing: string;
    location?: string;
    perTiBUSD?: number;
    slotHourUSD?: number;
    source: string;
  };
  note?: string;
  scope: string;
  // The caller's last jobs (at most 10, newest first, the last 24 hours), each priced at its own location.
  lastJobs?: {
    at: string;
    tool?: string;
    statement?: string;
    bytesBilled: number;
    costUSD?: number;
    cacheHit?: boolean;
    durationMs: number;
    jobId: string;
  }[];
}

// The result of each tool the app shows, by the tool's name.
export interface ToolResults {
  execute_sql: ExecuteSQLResult;
  get_query_results: GetQueryResultsResult;
  preview_table: PreviewTableResult;
  get_table_schema: GetTableSchemaResult;
  dry_run_sql: DryRunSQLResult;
  query_metrics: QueryMetricsResult;
  usage: UsageResult;
}
