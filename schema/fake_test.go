package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// fakeBigQuery serves the BigQuery REST calls the schema service makes
// (datasets.list, datasets.get, tables.list, tables.get, tabledata.list)
// from in-memory data, with the paging, error bodies and status codes
// BigQuery uses. The
// emulator proves real listing against real SQL storage in the integration
// tests; this fake is for what the emulator cannot do: page sizes it
// ignores, injected failures, hung requests.
type fakeBigQuery struct {
	project  string
	datasets []*bq.DatasetListDatasets
	tables   map[string][]*bq.Table    // by dataset ID, in listing order
	rows     map[string][]*bq.TableRow // by "dataset.table"

	// fail, when set, may answer a request with an error instead: it
	// returns the HTTP status and BigQuery reason, or 0.
	fail func(r *http.Request) (int, string)
	// hang, when set, holds a request until its context ends.
	hang func(r *http.Request) bool

	requests    atomic.Int32 // every request
	tableGets   atomic.Int32 // tables.get requests
	hungStarted atomic.Int32 // requests held by hang
	hungEnded   atomic.Int32 // held requests whose context ended
	// hungEnd has a value after a held request ends (one for any number).
	hungEnd chan struct{}

	mu  sync.Mutex
	log []string // "GET path?pageToken=…&maxResults=…"
}

func newFake() *fakeBigQuery {
	return &fakeBigQuery{project: "p", tables: map[string][]*bq.Table{}, rows: map[string][]*bq.TableRow{}, hungEnd: make(chan struct{}, 1)}
}

func (f *fakeBigQuery) addDataset(id, location string) {
	f.datasets = append(f.datasets, &bq.DatasetListDatasets{
		DatasetReference: &bq.DatasetReference{ProjectId: f.project, DatasetId: id},
		Location:         location,
	})
}

// addTable adds a table; its listing entry and its metadata come from t.
func (f *fakeBigQuery) addTable(dataset string, t *bq.Table) {
	t.TableReference = &bq.TableReference{ProjectId: f.project, DatasetId: dataset, TableId: t.TableReference.TableId}
	f.tables[dataset] = append(f.tables[dataset], t)
}

func table(id string) *bq.Table { return &bq.Table{TableReference: &bq.TableReference{TableId: id}} }

func (f *fakeBigQuery) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

func (f *fakeBigQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	q := r.URL.Query()
	f.mu.Lock()
	f.log = append(f.log, fmt.Sprintf("%s %s?pageToken=%s&maxResults=%s", r.Method, r.URL.Path, q.Get("pageToken"), q.Get("maxResults")))
	f.mu.Unlock()
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/bigquery/v2"), "/"), "/")
	if len(parts) == 6 && parts[4] == "tables" {
		f.tableGets.Add(1)
	}
	if f.hang != nil && f.hang(r) {
		f.hungStarted.Add(1)
		<-r.Context().Done()
		f.hungEnded.Add(1)
		select {
		case f.hungEnd <- struct{}{}:
		default:
		}
		return
	}
	if f.fail != nil {
		if status, reason := f.fail(r); status != 0 {
			writeError(w, status, reason, "injected "+reason)
			return
		}
	}
	switch {
	case len(parts) == 3 && parts[0] == "projects" && parts[2] == "datasets":
		if parts[1] != f.project {
			writeError(w, 404, "notFound", "Not found: Project "+parts[1])
			return
		}
		page, next := pageOf(len(f.datasets), q)
		resp := &bq.DatasetList{Kind: "bigquery#datasetList", NextPageToken: next}
		for _, i := range page {
			resp.Datasets = append(resp.Datasets, f.datasets[i])
		}
		writeJSON(w, resp)
	case len(parts) == 4 && parts[2] == "datasets":
		for _, d := range f.datasets {
			if d.DatasetReference.DatasetId == parts[3] {
				writeJSON(w, &bq.Dataset{DatasetReference: d.DatasetReference, Location: d.Location})
				return
			}
		}
		writeError(w, 404, "notFound", "Not found: Dataset "+parts[1]+":"+parts[3])
	case len(parts) == 5 && parts[2] == "datasets" && parts[4] == "tables":
		tabs, ok := f.tables[parts[3]]
		if !ok {
			writeError(w, 404, "notFound", "Not found: Dataset "+parts[1]+":"+parts[3])
			return
		}
		page, next := pageOf(len(tabs), q)
		resp := &bq.TableList{Kind: "bigquery#tableList", NextPageToken: next, TotalItems: int64(len(tabs))}
		for _, i := range page {
			t := tabs[i]
			resp.Tables = append(resp.Tables, &bq.TableListTables{
				TableReference: t.TableReference, Type: t.Type, Labels: t.Labels, CreationTime: t.CreationTime,
				ExpirationTime: t.ExpirationTime, TimePartitioning: t.TimePartitioning,
				RangePartitioning: t.RangePartitioning, Clustering: t.Clustering,
			})
		}
		writeJSON(w, resp)
	case len(parts) == 6 && parts[4] == "tables":
		for _, t := range f.tables[parts[3]] {
			if t.TableReference.TableId == parts[5] {
				writeJSON(w, t)
				return
			}
		}
		writeError(w, 404, "notFound", "Not found: Table "+parts[1]+":"+parts[3]+"."+parts[5])
	case len(parts) == 7 && parts[4] == "tables" && parts[6] == "data":
		rows := f.rows[parts[3]+"."+parts[5]]
		writeJSON(w, &bq.TableDataList{Kind: "bigquery#tableDataList", TotalRows: int64(len(rows)), Rows: rows})
	default:
		writeError(w, 400, "invalid", "unexpected request "+r.URL.Path)
	}
}

// pageOf returns the indexes of one page of n items and the next page's
// token, reading maxResults and pageToken as BigQuery does.
func pageOf(n int, q map[string][]string) (page []int, next string) {
	start, _ := strconv.Atoi(first(q["pageToken"]))
	size, _ := strconv.Atoi(first(q["maxResults"]))
	if size <= 0 {
		size = 50
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

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": status, "message": msg,
		"errors": []map[string]string{{"reason": reason, "message": msg, "domain": "global"}},
	}})
}

// testService is a schema Service on the real BigQuery client and REST
// service, wired as the server wires them (resilience.Transport under both,
// a resilience.Executor, a metadata cache), talking to fake.
type testService struct {
	*Service
	fake  *fakeBigQuery
	cache *resilience.Cache
}

type serviceOptions struct {
	project  string
	identity string
	cacheTTL time.Duration
	cache    *resilience.Cache // shared with another service, when set
}

func newTestService(t *testing.T, fake *fakeBigQuery, o serviceOptions) *testService {
	t.Helper()
	srv := httptest.NewServer(fake)
	hc := &http.Client{Transport: &resilience.Transport{Base: &http.Transport{}}}
	opts := []option.ClientOption{option.WithHTTPClient(hc), option.WithEndpoint(srv.URL)}
	ctx := context.Background()
	client, err := bigquery.NewClient(ctx, "p", opts...)
	if err != nil {
		t.Fatalf("bigquery.NewClient: %v", err)
	}
	rest, err := bq.NewService(ctx, opts...)
	if err != nil {
		t.Fatalf("bq.NewService: %v", err)
	}
	t.Cleanup(func() {
		client.Close()
		hc.CloseIdleConnections()
		srv.Close()
	})
	rcfg := resilience.Defaults()
	rcfg.Retry[resilience.Metadata] = resilience.Policy{Attempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Multiplier: 2, Timeout: 20 * time.Second}
	exec, err := resilience.NewExecutor(rcfg, resilience.Hooks{})
	if err != nil {
		t.Fatalf("resilience.NewExecutor: %v", err)
	}
	cache := o.cache
	if cache == nil {
		cache = resilience.NewCache(resilience.CacheConfig{TTL: o.cacheTTL, MaxStale: time.Hour})
	}
	if o.identity == "" {
		o.identity = "adc:sa@p.iam.gserviceaccount.com"
	}
	return &testService{Service: NewService(Config{Client: client, REST: rest, Executor: exec, Cache: cache, Identity: o.identity, Project: o.project}), fake: fake, cache: cache}
}
