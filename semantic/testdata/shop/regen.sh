#!/usr/bin/env bash
# Makes the shop's MetricFlow references again: semantic_manifest.json from
# model/*.yaml, then reference/*.json for every query of queries.json.
#
# Needs (none of it comes from PyPI, which these machines cannot reach):
#  - MetricFlow's source at the tag in METRICFLOW_VERSION, in MF_SRC
#    (default /work/mf). With the search tool's fetch of
#    github:dbt-labs/metricflow into a bare git dir GIT_DIR:
#      mkdir -p /work/mf && git --git-dir="$GIT_DIR" archive v0.211.0 -- . ':!ATTRIBUTION.md' | tar x -C /work/mf
#    (ATTRIBUTION.md is missing from the stored snapshot; nothing needs it.)
#  - Debian's python3 with: apt-get install python3-pydantic python3-jinja2
#    python3-jsonschema python3-more-itertools python3-dateutil python3-yaml
#    python3-tabulate python3-typing-extensions python3-importlib-metadata
#    (mf/mfenv.py stands in for the two that Debian 12 lacks).
#  - node and npm, for DuckDB (@duckdb/node-api ships its binary in the npm
#    package); installed here into DUCKDB_DIR (default /work/mf-duck).
#  - Go with clang, to run the emulator (integration_test/cmd/emulator).
# mf/make_data.py remakes data.yaml (only to change the data).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
export MF_SRC="${MF_SRC:-/work/mf}"
duck="${DUCKDB_DIR:-/work/mf-duck}"
if [ ! -d "$duck/node_modules/@duckdb/node-api" ]; then
  mkdir -p "$duck"
  npm install --prefix "$duck" --no-save @duckdb/node-api@1.5.6-r.1 >/dev/null
fi
export DUCKDB_NODE_MODULES="$duck/node_modules"
py=/usr/bin/python3

"$py" "$here/mf/build_manifest.py"

bin="$(mktemp -d)"
log="$bin/emulator.log"
(cd "$repo/integration_test" && CGO_ENABLED=1 CC=clang CXX=clang++ go build -o "$bin/emulator" ./cmd/emulator)
"$bin/emulator" -data "$here/data.yaml" >"$log" 2>&1 &
emu=$!
trap 'kill $emu 2>/dev/null; rm -rf "$bin"' EXIT
for _ in $(seq 120); do
  url="$(grep -o 'http://[^ ]*' "$log" | head -1 || true)"
  [ -n "$url" ] && break
  sleep 1
done
[ -n "$url" ] || { cat "$log"; exit 1; }
"$py" "$here/mf/reference.py" "$url"
