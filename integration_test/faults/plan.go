package faults

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
)

// Plan stands in for the parts of BigQuery's planner the emulator lacks
// (shared/NOTES.md: its dry runs name no tables and give no bytes, and it
// has no INFORMATION_SCHEMA), for one partitioned sample table: a dry run
// whose SQL names Table is forwarded (the emulator still checks the SQL)
// and its answer gets Bytes as its estimate and Table among the tables
// read; a query of the table's dataset's INFORMATION_SCHEMA.PARTITIONS is
// answered with Partitions, never forwarded. The table itself (its
// partitioning and clustering, which tables.insert keeps) and every other
// request are the emulator's.
type Plan struct {
	// Project, Dataset and Table name the sample table.
	Project, Dataset, Table string
	// Bytes is what a dry run of a query on it estimates.
	Bytes int64
	// Partitions are its partitions' sizes by partition ID.
	Partitions map[string]int64
}

// SetPlan makes the proxy answer for pl (nil: forward everything).
func (p *Proxy) SetPlan(pl *Plan) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.plan = pl
}

// planFor returns the plan that applies to req, if any.
func (p *Proxy) planFor(req Request) *Plan {
	p.mu.Lock()
	defer p.mu.Unlock()
	pl := p.plan
	if pl == nil {
		return nil
	}
	switch {
	case req.Op == "jobs.query" && strings.Contains(req.Query, pl.Dataset+".INFORMATION_SCHEMA.PARTITIONS"):
		return pl
	case req.Op == "jobs.insert" && req.DryRun && strings.Contains(req.Query, pl.Dataset+"."+pl.Table):
		return pl
	}
	return nil
}

// answerPartitions answers an INFORMATION_SCHEMA.PARTITIONS query, as
// BigQuery does: one row per partition, billed its 10 MB minimum.
func (pl *Plan) answerPartitions(w http.ResponseWriter) {
	var rows []map[string]any
	for id, n := range pl.Partitions {
		rows = append(rows, map[string]any{"f": []map[string]any{{"v": id}, {"v": strconv.FormatInt(n, 10)}}})
	}
	writeJSON(w, map[string]any{
		"kind":         "bigquery#queryResponse",
		"jobReference": map[string]any{"projectId": pl.Project, "jobId": "partitions_lookup", "location": "US"},
		"jobComplete":  true,
		"totalRows":    strconv.Itoa(len(rows)),
		"rows":         rows,
		"schema": map[string]any{"fields": []map[string]any{
			{"name": "partition_id", "type": "STRING"}, {"name": "total_logical_bytes", "type": "INTEGER"},
		}},
		"totalBytesProcessed": "65536",
		"totalBytesBilled":    "10485760",
	})
}

// planDryRun adds the estimate and the table read to a forwarded dry
// run's answer.
func (pl *Plan) planDryRun(rec *httptest.ResponseRecorder) {
	if rec.Code >= 300 {
		return
	}
	var job map[string]any
	if json.Unmarshal(rec.Body.Bytes(), &job) != nil {
		return
	}
	n := strconv.FormatInt(pl.Bytes, 10)
	stats, _ := job["statistics"].(map[string]any)
	if stats == nil {
		stats = map[string]any{}
	}
	q, _ := stats["query"].(map[string]any)
	if q == nil {
		q = map[string]any{}
	}
	stats["totalBytesProcessed"], q["totalBytesProcessed"], q["statementType"] = n, n, "SELECT"
	q["referencedTables"] = []map[string]any{{"projectId": pl.Project, "datasetId": pl.Dataset, "tableId": pl.Table}}
	stats["query"], job["statistics"] = q, stats
	b, err := json.Marshal(job)
	if err != nil {
		return
	}
	rec.Body.Reset()
	rec.Body.Write(b)
	rec.Header().Del("Content-Length")
}
