package bqfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	bq "google.golang.org/api/bigquery/v2"
)

type table struct {
	meta *bq.Table
	rows []*bq.TableRow
}

// clone deep-copies a REST value through its JSON, so what the fake keeps
// and what it hands out never share memory.
func clone[T any](v *T) *T {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("bqfake: %T does not marshal: %v", v, err))
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		panic(fmt.Sprintf("bqfake: %T does not unmarshal: %v", v, err))
	}
	return out
}

// AddDataset adds a dataset of the fake's project at location ("" for a
// dataset that names none, as the emulator's loaded ones do).
func (f *Fake) AddDataset(id, location string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.datasets = append(f.datasets, &bq.Dataset{Kind: "bigquery#dataset", Id: f.project + ":" + id,
		DatasetReference: &bq.DatasetReference{ProjectId: f.project, DatasetId: id}, Location: location})
	key := f.project + "." + id
	if f.tables[key] == nil {
		f.tables[key] = []*table{}
	}
}

// AddTable adds a table (its reference names it; the project defaults to
// the fake's) and its rows, which tabledata.list and getQueryResults page
// through. Its dataset need not be added for tables.get and
// tabledata.list; tables.list of an unknown dataset is 404.
func (f *Fake) AddTable(t *bq.Table, rows ...*bq.TableRow) {
	t = clone(t)
	if t.TableReference.ProjectId == "" {
		t.TableReference.ProjectId = f.project
	}
	if t.NumRows == 0 && len(rows) > 0 {
		t.NumRows = uint64(len(rows))
	}
	ref := t.TableReference
	key := ref.ProjectId + "." + ref.DatasetId
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, old := range f.tables[key] {
		if old.meta.TableReference.TableId == ref.TableId {
			old.meta, old.rows = t, rows
			return
		}
	}
	f.tables[key] = append(f.tables[key], &table{meta: t, rows: rows})
}

// SetRows sets the rows of a table of the fake's project, adding a bare
// table if there is none.
func (f *Fake) SetRows(dataset, id string, rows ...*bq.TableRow) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t := f.table(f.project, dataset, id); t != nil {
		t.rows = rows
		return
	}
	key := f.project + "." + dataset
	f.tables[key] = append(f.tables[key], &table{meta: &bq.Table{Kind: "bigquery#table",
		TableReference: &bq.TableReference{ProjectId: f.project, DatasetId: dataset, TableId: id}}, rows: rows})
}

func (f *Fake) table(project, dataset, id string) *table {
	for _, t := range f.tables[project+"."+dataset] {
		if t.meta.TableReference.TableId == id {
			return t
		}
	}
	return nil
}

// QueryResult makes schema and rows the result of every query job that
// OnJob leaves without a destination table: they land in a table of the
// fake's, as BigQuery writes a query's result to an anonymous table.
func (f *Fake) QueryResult(schema *bq.TableSchema, rows ...*bq.TableRow) {
	f.AddTable(&bq.Table{TableReference: resultRef(f.project), Schema: schema}, rows...)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hasResult = true
}

func resultRef(project string) *bq.TableReference {
	return &bq.TableReference{ProjectId: project, DatasetId: "_bqfake", TableId: "result"}
}

// Row is a table row of the values as BigQuery sends them (strings, nil
// for NULL).
func Row(values ...any) *bq.TableRow {
	r := &bq.TableRow{}
	for _, v := range values {
		r.F = append(r.F, &bq.TableCell{V: v})
	}
	return r
}

// Columns is a schema of "name TYPE" columns.
func Columns(cols ...string) *bq.TableSchema {
	s := &bq.TableSchema{}
	for _, c := range cols {
		name, typ, _ := strings.Cut(c, " ")
		s.Fields = append(s.Fields, &bq.TableFieldSchema{Name: name, Type: typ})
	}
	return s
}

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

// handle is the store's answer to req: a REST value, or an *Error.
func (f *Fake) handle(req *Request) (any, error) {
	switch req.Route {
	case DatasetsList:
		return f.listDatasets(req)
	case DatasetsGet:
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, d := range f.datasets {
			if d.DatasetReference.ProjectId == req.Project && d.DatasetReference.DatasetId == req.Dataset {
				return clone(d), nil
			}
		}
		return nil, Errorf(http.StatusNotFound, "notFound", "Not found: Dataset %s:%s", req.Project, req.Dataset)
	case TablesList:
		return f.listTables(req)
	case TablesGet, TablesPatch, TablesDelete:
		return f.tableCall(req)
	case TabledataList:
		f.mu.Lock()
		defer f.mu.Unlock()
		t := f.table(req.Project, req.Dataset, req.Table)
		if t == nil {
			return nil, tableNotFound(req.Project, req.Dataset, req.Table)
		}
		page, next := pageOf(len(t.rows), req.Query, len(t.rows))
		return &bq.TableDataList{Kind: "bigquery#tableDataList", TotalRows: int64(len(t.rows)), Rows: rowsAt(t.rows, page), PageToken: next}, nil
	case TabledataInsertAll:
		return &bq.TableDataInsertAllResponse{Kind: "bigquery#tableDataInsertAllResponse"}, nil
	case JobsInsert:
		return f.insertJob(req.Job, req.Project)
	case JobsGet:
		f.mu.Lock()
		defer f.mu.Unlock()
		j := f.jobs[req.JobID]
		if j == nil {
			return nil, f.jobNotFound(req)
		}
		return clone(j), nil
	case JobsCancel:
		f.mu.Lock()
		defer f.mu.Unlock()
		j := f.jobs[req.JobID]
		if j == nil {
			return nil, f.jobNotFound(req)
		}
		if j.Status == nil || j.Status.State != "DONE" {
			j.Status = &bq.JobStatus{State: "DONE", ErrorResult: &bq.ErrorProto{Reason: "stopped", Message: "Job execution was cancelled: User requested cancellation"}}
		}
		return &bq.JobCancelResponse{Kind: "bigquery#jobCancelResponse", Job: clone(j)}, nil
	case JobsQuery:
		return f.query(req)
	case JobsGetQueryResults:
		return f.results(req)
	case JobsList:
		f.mu.Lock()
		defer f.mu.Unlock()
		out := &bq.JobList{Kind: "bigquery#jobList"}
		for _, id := range f.jobOrder {
			j := f.jobs[id]
			out.Jobs = append(out.Jobs, &bq.JobListJobs{Id: j.Id, JobReference: j.JobReference, State: j.Status.State,
				Configuration: j.Configuration, Statistics: j.Statistics, Status: j.Status, ErrorResult: j.Status.ErrorResult})
		}
		return clone(out), nil
	}
	return nil, Errorf(http.StatusNotFound, "notFound", "bqfake serves no %s %s", req.Method, req.Path)
}

func tableNotFound(project, dataset, id string) *Error {
	return Errorf(http.StatusNotFound, "notFound", "Not found: Table %s:%s.%s", project, dataset, id)
}

func (f *Fake) jobNotFound(req *Request) *Error {
	loc := req.Query.Get("location")
	if loc == "" {
		loc = f.location
	}
	return Errorf(http.StatusNotFound, "notFound", "Not found: Job %s:%s.%s", req.Project, loc, req.JobID)
}

func (f *Fake) listDatasets(req *Request) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ds []*bq.Dataset
	for _, d := range f.datasets {
		if d.DatasetReference.ProjectId == req.Project {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 && req.Project != f.project {
		return nil, Errorf(http.StatusNotFound, "notFound", "Not found: Project %s", req.Project)
	}
	page, next := pageOf(len(ds), req.Query, 50)
	out := &bq.DatasetList{Kind: "bigquery#datasetList", NextPageToken: next}
	for _, i := range page {
		d := ds[i]
		out.Datasets = append(out.Datasets, &bq.DatasetListDatasets{DatasetReference: d.DatasetReference, Location: d.Location,
			Labels: d.Labels, FriendlyName: d.FriendlyName, Id: d.Id, Kind: "bigquery#dataset"})
	}
	return clone(out), nil
}

func (f *Fake) listTables(req *Request) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ts, ok := f.tables[req.Project+"."+req.Dataset]
	if !ok {
		return nil, Errorf(http.StatusNotFound, "notFound", "Not found: Dataset %s:%s", req.Project, req.Dataset)
	}
	page, next := pageOf(len(ts), req.Query, 50)
	out := &bq.TableList{Kind: "bigquery#tableList", NextPageToken: next, TotalItems: int64(len(ts))}
	for _, i := range page {
		t := ts[i].meta
		out.Tables = append(out.Tables, &bq.TableListTables{
			TableReference: t.TableReference, Type: t.Type, Labels: t.Labels, CreationTime: t.CreationTime,
			ExpirationTime: t.ExpirationTime, TimePartitioning: t.TimePartitioning,
			RangePartitioning: t.RangePartitioning, Clustering: t.Clustering, FriendlyName: t.FriendlyName,
		})
	}
	return clone(out), nil
}

func (f *Fake) tableCall(req *Request) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.table(req.Project, req.Dataset, req.Table)
	if t == nil {
		return nil, tableNotFound(req.Project, req.Dataset, req.Table)
	}
	switch req.Route {
	case TablesPatch:
		// A patch sets the fields it sends and leaves the others.
		if err := json.Unmarshal(req.Raw, t.meta); err != nil {
			return nil, Errorf(http.StatusBadRequest, "invalid", "tables.patch body: %v", err)
		}
	case TablesDelete:
		key := req.Project + "." + req.Dataset
		for i, old := range f.tables[key] {
			if old == t {
				f.tables[key] = append(f.tables[key][:i:i], f.tables[key][i+1:]...)
			}
		}
		return json.RawMessage(nil), nil
	}
	return clone(t.meta), nil
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

// pageOf returns the indexes of one page of n items and the next page's
// token, reading maxResults, pageToken and startIndex as BigQuery does;
// size is the page size when maxResults is not set.
func pageOf(n int, q url.Values, size int) (page []int, next string) {
	start, _ := strconv.Atoi(q.Get("pageToken"))
	if si := q.Get("startIndex"); si != "" && q.Get("pageToken") == "" {
		start, _ = strconv.Atoi(si)
	}
	if m, _ := strconv.Atoi(q.Get("maxResults")); m > 0 {
		size = m
	}
	end := min(start+size, n)
	for i := start; i < end; i++ {
		page = append(page, i)
	}
	if end < n {
		next = strconv.Itoa(end)
	}
	return page, next
}

func rowsAt(rows []*bq.TableRow, idx []int) []*bq.TableRow {
	out := make([]*bq.TableRow, 0, len(idx))
	for _, i := range idx {
		out = append(out, rows[i])
	}
	return out
}
