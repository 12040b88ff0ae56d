"""Compiles each query of ../queries.json with MetricFlow and computes its rows.

Writes ../reference/<name>.json: MetricFlow's BigQuery SQL, the result's
columns and rows (values decoded by type), whether row order matters (the
query has an order_by), and how the rows were computed:

- every query is compiled twice: MetricFlow's BigQuery SQL runs on the
  emulator loaded with ../data.yaml, its DuckDB SQL on DuckDB loaded with the
  same data (only the table names are mapped, see duckdb_sql; values get
  BigQuery's types). Where both agree, the emulator's rows are the reference.
- Approximate percentiles keep the emulator's rows (DuckDB's sketch differs;
  on this little data BigQuery's APPROX_QUANTILES is exact).
- Where they disagree otherwise, the emulator is wrong (its ISOWEEK
  truncation, nested FULL OUTER JOINs): DuckDB's rows are the reference and
  the emulator's are kept as emulator_rows, what MetricFlow's own SQL gets on
  the emulator.
- Queries whose BigQuery SQL has a window function (cumulative metrics at a
  grain coarser than the day) run on DuckDB only: the emulator evaluates each
  window call as a correlated subquery over its whole input (hours).

A query marked "refused" gets its SQL and no rows: the server must refuse it.

Usage: reference.py EMULATOR_URL   (DUCKDB_NODE_MODULES: see regen.sh)
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request

import mfenv

mfenv.setup()

import yaml  # noqa: E402

from metricflow.engine.metricflow_engine import MetricFlowEngine, MetricFlowQueryRequest  # noqa: E402
from metricflow.protocols.sql_client import SqlEngine  # noqa: E402
from metricflow.sql.render.big_query import BigQuerySqlPlanRenderer  # noqa: E402
from metricflow.sql.render.duckdb_renderer import DuckDbSqlPlanRenderer  # noqa: E402
from metricflow_semantics.model.dbt_manifest_parser import parse_manifest_from_dbt_generated_manifest  # noqa: E402
from metricflow_semantics.model.semantic_manifest_lookup import SemanticManifestLookup  # noqa: E402
from metricflow_semantics.test_helpers.time_helpers import ConfigurableTimeSource  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SHOP = os.path.dirname(HERE)
PROJECT = "demo-project"


class CompileOnlyClient:
    """A SqlClient that compiles for one engine and never connects."""

    def __init__(self, engine: SqlEngine, renderer: object) -> None:
        self.sql_engine_type = engine
        self.sql_plan_renderer = renderer

    def query(self, *_a, **_k):  # type: ignore[no-untyped-def]
        raise RuntimeError("compile only")

    execute = dry_run = query

    def close(self) -> None:
        return None

    def render_bind_parameter_key(self, bind_parameter_key: str) -> str:
        return f"@{bind_parameter_key}"


def engine(sql_engine: SqlEngine = SqlEngine.BIGQUERY) -> MetricFlowEngine:
    renderer = BigQuerySqlPlanRenderer() if sql_engine is SqlEngine.BIGQUERY else DuckDbSqlPlanRenderer()
    with open(os.path.join(SHOP, "semantic_manifest.json")) as f:
        manifest = parse_manifest_from_dbt_generated_manifest(f.read())
    return MetricFlowEngine(
        semantic_manifest_lookup=SemanticManifestLookup(manifest),
        sql_client=CompileOnlyClient(sql_engine, renderer),  # type: ignore[arg-type]
        # Nothing here may depend on the wall clock.
        time_source=ConfigurableTimeSource(datetime.datetime(2025, 7, 1)),
    )


def compile_query(mf: MetricFlowEngine, q: dict) -> str:
    if q.get("saved_query"):
        req = MetricFlowQueryRequest.create(saved_query_name=q["saved_query"])
    else:
        req = MetricFlowQueryRequest.create(
            metric_names=q.get("metrics"),
            group_by_names=q.get("group_by"),
            where_constraints=[q["where"]] if q.get("where") else None,
            order_by_names=q.get("order_by"),
            limit=q.get("limit"),
        )
    stmt = mf.explain(req).sql_statement
    if stmt.bind_parameter_set.param_dict:
        raise RuntimeError("MetricFlow bound parameters; the reference expects none")
    return stmt.sql


def decode(value: object, typ: str) -> object:
    if value is None:
        return None
    if typ in ("INTEGER", "INT64"):
        return int(value)  # type: ignore[arg-type]
    if typ in ("FLOAT", "FLOAT64", "NUMERIC", "BIGNUMERIC"):
        return float(value)  # type: ignore[arg-type]
    if typ in ("BOOLEAN", "BOOL"):
        return value in (True, "true")
    if typ == "TIMESTAMP":
        return datetime.datetime.fromtimestamp(float(value), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")  # type: ignore[arg-type]
    return value  # DATE, DATETIME and STRING stay as BigQuery writes them


def run_emulator(url: str, sql: str) -> tuple[list, list]:
    body = json.dumps({"query": sql, "useLegacySql": False}).encode()
    req = urllib.request.Request(
        f"{url}/bigquery/v2/projects/{PROJECT}/queries", data=body, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=600) as resp:
            out = json.load(resp)
    except urllib.error.HTTPError as e:
        raise RuntimeError(e.read().decode()[:2000]) from e
    fields = out["schema"]["fields"]
    columns = [{"name": f["name"], "type": f["type"]} for f in fields]
    rows = [[decode(cell["v"], f["type"]) for cell, f in zip(r["f"], fields)] for r in out.get("rows", [])]
    return columns, rows


# BigQuery's column types for DuckDB's, and the DuckDB types the data loads as.
DUCK_TO_BQ = {"BIGINT": "INTEGER", "INTEGER": "INTEGER", "HUGEINT": "INTEGER", "DOUBLE": "FLOAT", "FLOAT": "FLOAT",
              "DATE": "DATE", "TIMESTAMP": "DATETIME", "VARCHAR": "STRING", "BOOLEAN": "BOOLEAN"}
BQ_TO_DUCK = {"INTEGER": "BIGINT", "STRING": "VARCHAR", "DATE": "DATE", "NUMERIC": "DECIMAL(38,9)", "FLOAT": "DOUBLE",
              "TIMESTAMP": "TIMESTAMP", "BOOLEAN": "BOOLEAN"}


def duckdb_sql(sql: str) -> str:
    """Maps the manifest's BigQuery relation names to the DuckDB tables: the only change."""
    return re.sub(r"`" + re.escape(PROJECT) + r"`\.`mf_shop`\.`(\w+)`", r"mf_shop.\1", sql)


def duckdb_setup() -> list:
    with open(os.path.join(SHOP, "data.yaml")) as f:
        data = yaml.safe_load(f)
    stmts = ["CREATE SCHEMA mf_shop"]
    for ds in data["projects"][0]["datasets"]:
        for t in ds["tables"]:
            cols = [(c["name"], c["type"]) for c in t["columns"]]
            stmts.append(f"CREATE TABLE {ds['id']}.{t['id']} (" + ", ".join(f"{n} {BQ_TO_DUCK[ty]}" for n, ty in cols) + ")")
            values = []
            for row in t.get("data") or []:
                cells = []
                for n, ty in cols:
                    v = row.get(n)
                    if v is None:
                        cells.append("NULL")
                    elif ty in ("INTEGER", "FLOAT", "NUMERIC"):
                        cells.append(f"CAST('{v}' AS {BQ_TO_DUCK[ty]})")
                    elif ty == "BOOLEAN":
                        cells.append("TRUE" if v else "FALSE")
                    else:
                        cells.append("CAST('" + str(v).replace("'", "''") + f"' AS {BQ_TO_DUCK[ty]})")
                values.append("(" + ", ".join(cells) + ")")
            if values:
                stmts.append(f"INSERT INTO {ds['id']}.{t['id']} VALUES " + ", ".join(values))
    return stmts


def run_duckdb(queries: list) -> dict:
    modules = os.environ.get("DUCKDB_NODE_MODULES")
    if not modules:
        sys.exit("DUCKDB_NODE_MODULES is not set (see regen.sh)")
    job = json.dumps({"setup": duckdb_setup(), "queries": queries})
    out = subprocess.run(["node", os.path.join(HERE, "duckrun.cjs")], input=job, capture_output=True, text=True,
                         check=False, env=dict(os.environ))
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    results = {}
    for name, res in json.loads(out.stdout).items():
        types = [DUCK_TO_BQ.get(c["type"], "NUMERIC" if c["type"].startswith("DECIMAL") else c["type"]) for c in res["columns"]]
        columns = [{"name": c["name"], "type": t} for c, t in zip(res["columns"], types)]
        rows = []
        for r in res["rows"]:
            row = []
            for v, t in zip(r, types):
                if t == "DATETIME" and v is not None:
                    v = v.replace(" ", "T")
                row.append(decode(v, t))
            rows.append(row)
        results[name] = (columns, rows)
    return results


def _same(a: list, b: list, ordered: bool) -> bool:
    def norm(row: list) -> list:
        return [round(v, 6) if isinstance(v, float) else v for v in row]

    x, y = [norm(r) for r in a], [norm(r) for r in b]
    if not ordered:
        x, y = sorted(x, key=repr), sorted(y, key=repr)
    return x == y


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    url = sys.argv[1].rstrip("/")
    with open(os.path.join(SHOP, "queries.json")) as f:
        queries = json.load(f)
    bq, duck = engine(SqlEngine.BIGQUERY), engine(SqlEngine.DUCKDB)
    refs, emulated, on_duckdb, failed = {}, {}, [], []
    for q in queries:
        try:
            sql = compile_query(bq, q)
            ref: dict = {"name": q["name"], "metricflow_sql": sql}
            if q.get("refused"):
                ref["refused"] = True
            else:
                ref["ordered"] = bool(q.get("order_by"))
                ref["metricflow_duckdb_sql"] = duckdb_sql(compile_query(duck, q))
                on_duckdb.append({"name": q["name"], "sql": ref["metricflow_duckdb_sql"]})
            refs[q["name"]] = ref
        except Exception as e:  # noqa: BLE001 (report every query that fails, then stop)
            failed.append(f"{q['name']}: MetricFlow: {str(e)[:1500]}")
            continue
        if q.get("refused") or " OVER (" in sql:
            continue
        try:
            emulated[q["name"]] = run_emulator(url, sql)
        except RuntimeError as e:
            failed.append(f"{q['name']}: emulator: {e}")
    if failed:
        sys.exit("queries that failed:\n" + "\n".join(failed))
    for name, (columns, rows) in run_duckdb(on_duckdb).items():
        ref = refs[name]
        if name not in emulated:
            ref["computed_by"] = "duckdb: the emulator runs each window function as a correlated subquery per row (hours)"
            ref["columns"], ref["rows"] = columns, rows
        elif _same(emulated[name][1], rows, ref["ordered"]):
            ref["computed_by"] = "emulator, and DuckDB agrees"
            ref["columns"], ref["rows"] = emulated[name]
        elif "APPROX_QUANTILES" in ref["metricflow_sql"]:
            ref["computed_by"] = "emulator: approximate percentiles (DuckDB's approx_quantile is another sketch)"
            ref["columns"], ref["rows"] = emulated[name]
        else:
            # The emulator is wrong here (ISOWEEK truncation, nested FULL
            # OUTER JOINs): DuckDB's rows are the reference, and the rows
            # MetricFlow's own SQL gets on the emulator are kept beside them.
            ref["computed_by"] = "duckdb: the emulator's rows for MetricFlow's BigQuery SQL differ (emulator_rows)"
            ref["columns"], ref["rows"] = columns, rows
            ref["emulator_rows"] = emulated[name][1]
        print(f"{name}: {len(ref['rows'])} rows, {ref['computed_by']}", file=sys.stderr)
        if not ref["rows"]:
            failed.append(f"{name}: no rows: the query tests nothing")
    if failed:
        sys.exit("queries that failed:\n" + "\n".join(failed))
    for ref in refs.values():
        if "rows" in ref and not ref["ordered"]:
            # Row order means nothing here: sorted, the file is stable.
            ref["rows"].sort(key=lambda r: json.dumps(r))
            if "emulator_rows" in ref:
                ref["emulator_rows"].sort(key=lambda r: json.dumps(r))
    outdir = os.path.join(SHOP, "reference")
    os.makedirs(outdir, exist_ok=True)
    for old in os.listdir(outdir):
        os.remove(os.path.join(outdir, old))
    for name, ref in refs.items():
        with open(os.path.join(outdir, name + ".json"), "w") as f:
            json.dump(ref, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
