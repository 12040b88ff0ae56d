package faults

// Held jobs: query jobs the proxy keeps RUNNING for ever (HoldQueries), as
// BigQuery would a long query, answering jobs.get, getQueryResults and
// jobs.cancel for them itself.

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

// heldPrefix starts the ID the proxy gives a held jobs.query, followed by
// its requestId, so a repeat of the request finds the same job, as on
// BigQuery.
const heldPrefix = "held_"

func (p *Proxy) holdJob(w http.ResponseWriter, r *http.Request, req Request) {
	m := insertPath.FindStringSubmatch(r.URL.Path)
	if req.Op == "jobs.query" {
		m = jobsQuery.FindStringSubmatch(r.URL.Path)
	}
	p.mu.Lock()
	p.held[req.JobID] = &heldJob{project: m[1], location: "US", query: req.Query}
	p.mu.Unlock()
	req.Fault = "held"
	p.record(req)
	if req.Op == "jobs.query" {
		p.answerHeldQuery(w, r, req)
		return
	}
	writeJSON(w, p.jobJSON(req.JobID))
}

// answerHeldQuery answers a jobs.query of a held job as BigQuery does for a
// job still running: after timeoutMs, jobComplete false with the job's
// reference.
func (p *Proxy) answerHeldQuery(w http.ResponseWriter, r *http.Request, req Request) {
	var q struct {
		TimeoutMs *int64 `json:"timeoutMs"`
	}
	wait := 10 * time.Second
	if body, err := io.ReadAll(r.Body); err == nil && json.Unmarshal(body, &q) == nil && q.TimeoutMs != nil {
		wait = time.Duration(*q.TimeoutMs) * time.Millisecond
	}
	select {
	case <-time.After(wait):
	case <-r.Context().Done():
		return
	}
	writeJSON(w, map[string]any{"kind": "bigquery#queryResponse", "jobReference": jobRef(req.JobID), "jobComplete": false})
}

func (p *Proxy) answerHeld(w http.ResponseWriter, r *http.Request, req Request) {
	req.Fault = "held"
	switch req.Op {
	case "jobs.cancel":
		p.mu.Lock()
		p.held[req.JobID].cancelled = true
		p.mu.Unlock()
		p.record(req)
		writeJSON(w, map[string]any{"kind": "bigquery#jobCancelResponse", "job": p.jobJSON(req.JobID)})
	case "jobs.query":
		p.record(req)
		p.answerHeldQuery(w, r, req)
	case "jobs.getQueryResults":
		p.record(req)
		// A long poll that never completes: wait a little, as BigQuery does.
		wait := 50 * time.Millisecond
		if ms, err := strconv.Atoi(r.URL.Query().Get("timeoutMs")); err == nil && ms < 50 {
			wait = time.Duration(ms) * time.Millisecond
		}
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			return
		}
		m := jobRef(req.JobID)
		writeJSON(w, map[string]any{"kind": "bigquery#getQueryResultsResponse", "jobReference": m, "jobComplete": false})
	default:
		p.record(req)
		writeJSON(w, p.jobJSON(req.JobID))
	}
}

func (p *Proxy) jobJSON(id string) map[string]any {
	p.mu.Lock()
	h := p.held[id]
	p.mu.Unlock()
	state := "RUNNING"
	status := map[string]any{"state": state}
	if h.cancelled {
		status = map[string]any{"state": "DONE", "errorResult": map[string]any{"reason": "stopped", "message": "Job execution was cancelled: User requested cancellation"}}
	}
	return map[string]any{
		"kind":          "bigquery#job",
		"id":            h.project + ":US." + id,
		"jobReference":  map[string]any{"projectId": h.project, "jobId": id, "location": h.location},
		"configuration": map[string]any{"jobType": "QUERY", "query": map[string]any{"query": h.query}},
		"status":        status,
		"statistics":    map[string]any{"creationTime": strconv.FormatInt(time.Now().UnixMilli(), 10), "query": map[string]any{"statementType": "SELECT"}},
	}
}

func jobRef(id string) map[string]any {
	return map[string]any{"jobId": id, "location": "US"}
}
