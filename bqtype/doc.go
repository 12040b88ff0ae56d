// Package bqtype holds the BigQuery vocabulary that the tools share: result
// and table columns as agents see them, the identifiers agents pass in
// (projects, datasets, tables, jobs, locations) with BigQuery's rules for
// each, and the freshness marker of metadata answers.
//
// It is a leaf: query and schema both build on it as siblings, and it knows
// nothing of MCP, retries or caching. Identifiers are checked here before
// any of them reaches a request URL, so a malformed or hostile ID fails as
// INVALID_ARGUMENT without a round trip.
package bqtype
