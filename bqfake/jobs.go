package bqfake

// The store's jobs: what a test scripts (OnJob, AddJob, UpdateJob) and reads
// back (Job, Jobs), and the job routes (jobs.insert, jobs.query,
// getQueryResults) that store.go's handle dispatches to.

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	bq "google.golang.org/api/bigquery/v2"
)

// OnJob sets fn to finish every new job (jobs.insert, jobs.query, dry runs
// included) before it is kept and answered: its state (DONE by default),
// status errors, statistics, a query's destination table. fn must not
// block.
func (f *Fake) OnJob(fn func(*bq.Job)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onJob = fn
}

// AddJob keeps j as it is, for jobs.get, getQueryResults and jobs.cancel.
func (f *Fake) AddJob(j *bq.Job) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keep(clone(j))
}

func (f *Fake) keep(j *bq.Job) {
	id := j.JobReference.JobId
	if _, ok := f.jobs[id]; !ok {
		f.jobOrder = append(f.jobOrder, id)
	}
	f.jobs[id] = j
}

// Job returns the kept job with that ID, or nil.
func (f *Fake) Job(id string) *bq.Job {
	f.mu.Lock()
	defer f.mu.Unlock()
	if j := f.jobs[id]; j != nil {
		return clone(j)
	}
	return nil
}

// Jobs returns the kept jobs in the order they were first kept.
func (f *Fake) Jobs() []*bq.Job {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*bq.Job
	for _, id := range f.jobOrder {
		out = append(out, clone(f.jobs[id]))
	}
	return out
}

// UpdateJob changes the kept job with that ID (to finish a running job,
// say) and reports whether there is one.
func (f *Fake) UpdateJob(id string, fn func(*bq.Job)) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	j := f.jobs[id]
	if j == nil {
		return false
	}
	fn(j)
	return true
}

func (f *Fake) jobNotFound(req *Request) *Error {
	loc := req.Query.Get("location")
	if loc == "" {
		loc = f.location
	}
	return Errorf(http.StatusNotFound, "notFound", "Not found: Job %s:%s.%s", req.Project, loc, req.JobID)
}

// newJob fills in what BigQuery fills in a job it accepts, lets OnJob
// finish it, and keeps it unless it is a dry run.
func (f *Fake) newJob(j *bq.Job, project string) (*bq.Job, error) {
	if j.JobReference == nil {
		j.JobReference = &bq.JobReference{}
	}
	ref := j.JobReference
	if ref.ProjectId == "" {
		ref.ProjectId = project
	}
	if ref.Location == "" {
		ref.Location = f.location
	}
	if j.Configuration == nil {
		j.Configuration = &bq.JobConfiguration{}
	}
	c := j.Configuration
	switch {
	case c.Query != nil:
		c.JobType = "QUERY"
	case c.Copy != nil:
		c.JobType = "COPY"
	case c.Extract != nil:
		c.JobType = "EXTRACT"
	case c.Load != nil:
		c.JobType = "LOAD"
	}
	var graphs *bq.TableReference
	if q := c.Query; q != nil && !c.DryRun && readsPropertyGraphs(q.Query) {
		var err error
		if graphs, err = f.propertyGraphsResult(q, ref.ProjectId); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	if ref.JobId == "" && !c.DryRun {
		f.nextJob++
		ref.JobId = fmt.Sprintf("job_%d", f.nextJob)
	}
	if _, dup := f.jobs[ref.JobId]; dup && !c.DryRun {
		f.mu.Unlock()
		return nil, Errorf(http.StatusConflict, "duplicate", "Already Exists: Job %s:%s.%s", ref.ProjectId, ref.Location, ref.JobId)
	}
	onJob, hasResult := f.onJob, f.hasResult
	f.mu.Unlock()
	j.Kind = "bigquery#job"
	if !c.DryRun {
		j.Id = ref.ProjectId + ":" + ref.Location + "." + ref.JobId
	}
	j.Status = &bq.JobStatus{State: "DONE"}
	j.Statistics = &bq.JobStatistics{}
	if c.Query != nil {
		j.Statistics.Query = &bq.JobStatistics2{StatementType: "SELECT"}
	}
	if onJob != nil {
		onJob(j)
	}
	if q := c.Query; graphs != nil && q.DestinationTable == nil {
		// INFORMATION_SCHEMA bills BigQuery's 10 MB minimum.
		q.DestinationTable = graphs
		if st := j.Statistics; st != nil && st.Query != nil && st.Query.TotalBytesBilled == 0 {
			st.Query.TotalBytesBilled = 10 << 20
		}
	}
	if q := c.Query; q != nil && !c.DryRun && q.DestinationTable == nil && hasResult {
		q.DestinationTable = resultRef(f.project)
	}
	if j.Status != nil && j.Status.ErrorResult != nil && len(j.Status.Errors) == 0 {
		j.Status.Errors = []*bq.ErrorProto{j.Status.ErrorResult}
	}
	if c.DryRun {
		return j, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.jobs[ref.JobId]; dup {
		return nil, Errorf(http.StatusConflict, "duplicate", "Already Exists: Job %s:%s.%s", ref.ProjectId, ref.Location, ref.JobId)
	}
	// A copy that succeeds writes its destination.
	if cp := c.Copy; cp != nil && j.Status.State == "DONE" && j.Status.ErrorResult == nil && cp.DestinationTable != nil {
		src := cp.SourceTable
		if src == nil && len(cp.SourceTables) > 0 {
			src = cp.SourceTables[0]
		}
		if src != nil {
			if s := f.table(src.ProjectId, src.DatasetId, src.TableId); s != nil && f.table(cp.DestinationTable.ProjectId, cp.DestinationTable.DatasetId, cp.DestinationTable.TableId) == nil {
				meta := clone(s.meta)
				meta.TableReference = clone(cp.DestinationTable)
				key := meta.TableReference.ProjectId + "." + meta.TableReference.DatasetId
				f.tables[key] = append(f.tables[key], &table{meta: meta, rows: s.rows})
			}
		}
	}
	f.keep(clone(j))
	return j, nil
}

func (f *Fake) insertJob(j *bq.Job, project string) (any, error) {
	if j == nil {
		j = &bq.Job{}
	}
	return f.newJob(clone(j), project)
}

// query runs jobs.query: a query job with an ID the fake picks, answered
// with its first page when OnJob leaves it DONE.
func (f *Fake) query(req *Request) (any, error) {
	q := req.QueryRequest
	if q == nil {
		q = &bq.QueryRequest{}
	}
	j := &bq.Job{
		JobReference: &bq.JobReference{ProjectId: req.Project, Location: q.Location},
		Configuration: &bq.JobConfiguration{DryRun: q.DryRun, Labels: q.Labels, JobTimeoutMs: q.JobTimeoutMs,
			Query: &bq.JobConfigurationQuery{Query: q.Query, DefaultDataset: q.DefaultDataset, QueryParameters: q.QueryParameters,
				ParameterMode: q.ParameterMode, UseLegacySql: q.UseLegacySql, UseQueryCache: q.UseQueryCache,
				MaximumBytesBilled: q.MaximumBytesBilled, ConnectionProperties: q.ConnectionProperties, CreateSession: q.CreateSession}},
	}
	j, err := f.newJob(j, req.Project)
	if err != nil {
		return nil, err
	}
	if j.Status.ErrorResult != nil {
		return nil, jobError(j.Status.ErrorResult)
	}
	st := j.Statistics
	out := &bq.QueryResponse{Kind: "bigquery#queryResponse", JobReference: j.JobReference, JobComplete: j.Status.State == "DONE",
		TotalBytesProcessed: st.TotalBytesProcessed, TotalSlotMs: st.TotalSlotMs}
	if st.Query != nil {
		out.TotalBytesProcessed = max(out.TotalBytesProcessed, st.Query.TotalBytesProcessed)
		out.TotalBytesBilled, out.CacheHit = st.Query.TotalBytesBilled, st.Query.CacheHit
		out.NumDmlAffectedRows = st.Query.NumDmlAffectedRows
	}
	if q.DryRun {
		if st.Query != nil {
			out.Schema = st.Query.Schema
		}
		return out, nil
	}
	if !out.JobComplete {
		return out, nil
	}
	schema, rows, next := f.resultPage(j, url.Values{"maxResults": {maxResults(q.MaxResults)}})
	out.Schema, out.Rows, out.TotalRows, out.PageToken = schema, rows.page, uint64(rows.total), next
	return out, nil
}

func maxResults(n int64) string {
	if n <= 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

type rowPage struct {
	page  []*bq.TableRow
	total int
}

// resultPage is one page of a query job's result: its destination table's
// rows, its schema (or the statistics' schema).
func (f *Fake) resultPage(j *bq.Job, q url.Values) (*bq.TableSchema, rowPage, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var schema *bq.TableSchema
	if j.Statistics != nil && j.Statistics.Query != nil {
		schema = j.Statistics.Query.Schema
	}
	var all []*bq.TableRow
	if c := j.Configuration.Query; c != nil && c.DestinationTable != nil {
		d := c.DestinationTable
		if t := f.table(d.ProjectId, d.DatasetId, d.TableId); t != nil {
			all = t.rows
			if t.meta.Schema != nil {
				schema = t.meta.Schema
			}
		}
	}
	page, next := pageOf(len(all), q, len(all))
	return clone(schema), rowPage{page: rowsAt(all, page), total: len(all)}, next
}

func (f *Fake) results(req *Request) (any, error) {
	f.mu.Lock()
	kept := f.jobs[req.JobID]
	var j *bq.Job
	if kept != nil {
		j = clone(kept)
	}
	f.mu.Unlock()
	if j == nil {
		return nil, f.jobNotFound(req)
	}
	out := &bq.GetQueryResultsResponse{Kind: "bigquery#getQueryResultsResponse", JobReference: j.JobReference}
	if j.Status == nil || j.Status.State != "DONE" {
		return out, nil
	}
	if j.Status.ErrorResult != nil {
		return nil, jobError(j.Status.ErrorResult)
	}
	out.JobComplete = true
	if st := j.Statistics; st != nil {
		out.TotalBytesProcessed = st.TotalBytesProcessed
		if st.Query != nil {
			out.TotalBytesProcessed = max(out.TotalBytesProcessed, st.Query.TotalBytesProcessed)
			out.CacheHit, out.NumDmlAffectedRows = st.Query.CacheHit, st.Query.NumDmlAffectedRows
		}
	}
	schema, rows, next := f.resultPage(j, req.Query)
	out.Schema, out.Rows, out.TotalRows, out.PageToken = schema, rows.page, uint64(rows.total), next
	return out, nil
}

// jobError is the HTTP answer BigQuery gives for a failed query job.
func jobError(e *bq.ErrorProto) *Error {
	status := http.StatusBadRequest
	switch e.Reason {
	case "backendError", "internalError":
		status = http.StatusInternalServerError
	case "accessDenied":
		status = http.StatusForbidden
	case "notFound":
		status = http.StatusNotFound
	case "stopped":
		status = http.StatusBadRequest
	}
	return &Error{Status: status, Reason: e.Reason, Message: e.Message}
}
