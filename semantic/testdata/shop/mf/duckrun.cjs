// Runs SQL on an in-memory DuckDB for reference.py: reads
// {"setup": [sql...], "queries": [{"name", "sql"}]} on stdin, writes
// {name: {"columns": [{"name", "type"}], "rows": [[...]]}} on stdout.
// DUCKDB_NODE_MODULES names the node_modules holding @duckdb/node-api.
const path = require('path');
const { DuckDBInstance } = require(path.join(process.env.DUCKDB_NODE_MODULES, '@duckdb/node-api'));

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const job = JSON.parse(input);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  for (const stmt of job.setup) await conn.run(stmt);
  const out = {};
  for (const q of job.queries) {
    const r = await conn.runAndReadAll(q.sql);
    const types = r.columnTypes().map(String);
    out[q.name] = {
      columns: r.columnNames().map((name, i) => ({ name, type: types[i] })),
      rows: r.getRowsJson(),
    };
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(String(e.stack || e) + '\n');
  process.exit(1);
});
