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
