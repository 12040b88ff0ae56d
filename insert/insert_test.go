package insert

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// fakeInsertAll answers tabledata.insertAll. answer decides each reply from
// the attempt number (from 1) and the request; nil answers 200 with no
// insertErrors. Every request body is kept as sent.
type fakeInsertAll struct {
	t      *testing.T
	answer func(attempt int, req *bq.TableDataInsertAllRequest) (int, any)

	mu     sync.Mutex
	paths  []string
	bodies [][]byte
}

func (f *fakeInsertAll) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("reading body: %v", err)
	}
	f.mu.Lock()
	f.paths = append(f.paths, r.Method+" "+r.URL.Path)
	f.bodies = append(f.bodies, body)
	attempt := len(f.bodies)
	f.mu.Unlock()
	if !strings.HasSuffix(r.URL.Path, "/insertAll") {
		writeJSON(w, http.StatusNotFound, apiError(http.StatusNotFound, "notFound", "not found: "+r.URL.Path))
		return
	}
	var req bq.TableDataInsertAllRequest
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("request body is not an insertAll request: %v", err)
	}
	status, v := http.StatusOK, any(map[string]any{"kind": "bigquery#tableDataInsertAllResponse"})
	if f.answer != nil {
		status, v = f.answer(attempt, &req)
	}
	writeJSON(w, status, v)
}

func (f *fakeInsertAll) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

// wireRows returns request i's rows as sent: insertId and raw json.
func (f *fakeInsertAll) wireRows(t *testing.T, i int) []struct {
	InsertID string          `json:"insertId"`
	JSON     json.RawMessage `json:"json"`
} {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var req struct {
		Rows []struct {
			InsertID string          `json:"insertId"`
			JSON     json.RawMessage `json:"json"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(f.bodies[i], &req); err != nil {
		t.Fatal(err)
	}
	return req.Rows
}

func apiError(code int, reason, msg string) map[string]any {
	return map[string]any{"error": map[string]any{
		"code": code, "message": msg,
		"errors": []map[string]any{{"reason": reason, "message": msg, "domain": "global"}},
	}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// newService returns a Service talking to fake through resilience.Transport
// (so the client library retries nothing), under the default write policy
// (2 attempts) with millisecond waits.
func newService(t *testing.T, fake *fakeInsertAll, cfg Config) *Service {
	t.Helper()
	fake.t = t
	srv := httptest.NewServer(fake)
	hc := &http.Client{Transport: &resilience.Transport{}}
	rest, err := bq.NewService(context.Background(), option.WithHTTPClient(hc), option.WithEndpoint(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hc.CloseIdleConnections(); srv.Close() })
	rcfg := resilience.Defaults()
	p := rcfg.Retry[resilience.Write]
	p.BaseDelay, p.MaxDelay = time.Millisecond, time.Millisecond
	rcfg.Retry[resilience.Write] = p
	exec, err := resilience.NewExecutor(rcfg, resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Project == "" {
		cfg.Project = "p"
	}
	cfg.REST, cfg.Executor = rest, exec
	return NewService(cfg)
}

// rowsOf decodes rows the way the server decodes tool arguments: numbers
// as json.Number.
func rowsOf(t *testing.T, js string) []map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	var rows []map[string]any
	if err := dec.Decode(&rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func codeOf(t *testing.T, err error) bqerr.Code {
	t.Helper()
	e, ok := bqerr.As(err)
	if !ok {
		t.Fatalf("error %v (%T) is not a *bqerr.Error", err, err)
	}
	return e.Code
}

func TestRetryResendsTheSameInsertIDs(t *testing.T) {
	fake := &fakeInsertAll{answer: func(attempt int, _ *bq.TableDataInsertAllRequest) (int, any) {
		if attempt == 1 {
			return http.StatusServiceUnavailable, apiError(http.StatusServiceUnavailable, "backendError", "try again")
		}
		return http.StatusOK, map[string]any{}
	}}
	s := newService(t, fake, Config{})
	rows := rowsOf(t, `[{"id": 12345678901234567891, "amount": 0.1000000000000000055511151231257827, "name": "a"},
		{"id": 2, "tags": ["x"], "nested": {"n": 9007199254740993}}, {}]`)
	out, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	if out.InsertedRows != 3 || out.FailedRows != 0 || out.Table != "p.d.t" || len(out.Errors) != 0 {
		t.Errorf("result = %+v", out)
	}
	if n := fake.requests(); n != 2 {
		t.Fatalf("%d requests at the wire, want 2 (one failed, one retried)", n)
	}
	if fake.paths[0] != "POST /projects/p/datasets/d/tables/t/insertAll" {
		t.Errorf("path = %s", fake.paths[0])
	}
	first, second := fake.wireRows(t, 0), fake.wireRows(t, 1)
	seen := map[string]bool{}
	for i := range first {
		if first[i].InsertID == "" || first[i].InsertID != second[i].InsertID {
			t.Errorf("row %d: insertId %q then %q: a retry must resend the same one", i, first[i].InsertID, second[i].InsertID)
		}
		if seen[first[i].InsertID] {
			t.Errorf("row %d: insertId %q used twice", i, first[i].InsertID)
		}
		seen[first[i].InsertID] = true
	}
	// Numbers reach BigQuery with their exact digits, not as float64.
	for _, want := range []string{`"id":12345678901234567891`, `"amount":0.1000000000000000055511151231257827`, `"n":9007199254740993`} {
		if !bytes.Contains(first[0].JSON, []byte(want)) && !bytes.Contains(first[1].JSON, []byte(want)) {
			t.Errorf("%s not on the wire: %s %s", want, first[0].JSON, first[1].JSON)
		}
	}
	if string(first[2].JSON) != "{}" {
		t.Errorf("an empty row must be sent as {}, got %s", first[2].JSON)
	}
}

func TestRetriesStopAtTheWritePolicy(t *testing.T) {
	fake := &fakeInsertAll{answer: func(int, *bq.TableDataInsertAllRequest) (int, any) {
		return http.StatusServiceUnavailable, apiError(http.StatusServiceUnavailable, "backendError", "down")
	}}
	s := newService(t, fake, Config{})
	_, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, `[{"a":1}]`)})
	if code := codeOf(t, err); code != bqerr.Unavailable {
		t.Errorf("code = %s, want UNAVAILABLE", code)
	}
	if n := fake.requests(); n != 2 {
		t.Errorf("%d requests, want the write policy's 2", n)
	}
}

func TestNotFoundIsNotRetried(t *testing.T) {
	fake := &fakeInsertAll{answer: func(int, *bq.TableDataInsertAllRequest) (int, any) {
		return http.StatusNotFound, apiError(http.StatusNotFound, "notFound", "Not found: Table p:d.t")
	}}
	s := newService(t, fake, Config{})
	_, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, `[{"a":1}]`)})
	if code := codeOf(t, err); code != bqerr.NotFound {
		t.Errorf("code = %s, want NOT_FOUND", code)
	}
	if n := fake.requests(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// insertErrors answers as BigQuery does: each listed index with its errors.
func insertErrors(byIndex map[int][]map[string]string) map[string]any {
	var list []map[string]any
	for i, errs := range byIndex {
		list = append(list, map[string]any{"index": i, "errors": errs})
	}
	return map[string]any{"insertErrors": list}
}

func TestRowErrorsKeepTheirIndex(t *testing.T) {
	invalid := func(field, msg string) []map[string]string {
		return []map[string]string{{"reason": "invalid", "location": field, "message": msg}}
	}
	stoppedRow := []map[string]string{{"reason": "stopped"}}
	rows := `[{"a":1},{"a":"x"},{"a":3},{"b":4},{"a":5}]`

	t.Run("skipInvalidRows", func(t *testing.T) {
		fake := &fakeInsertAll{answer: func(_ int, req *bq.TableDataInsertAllRequest) (int, any) {
			if !req.SkipInvalidRows || !req.IgnoreUnknownValues {
				t.Errorf("flags not sent: skip=%v ignore=%v", req.SkipInvalidRows, req.IgnoreUnknownValues)
			}
			return http.StatusOK, insertErrors(map[int][]map[string]string{
				3: invalid("b", "no such field: b."),
				1: invalid("a", "Cannot convert value to integer."),
			})
		}}
		s := newService(t, fake, Config{})
		out, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, rows), SkipInvalidRows: true, IgnoreUnknownValues: true})
		if err != nil {
			t.Fatal(err)
		}
		want := []RowError{{Index: 1, Reason: "invalid", Location: "a", Message: "Cannot convert value to integer."}, {Index: 3, Reason: "invalid", Location: "b", Message: "no such field: b."}}
		if out.InsertedRows != 3 || out.FailedRows != 2 || fmt.Sprint(out.Errors) != fmt.Sprint(want) || out.Hint == "" {
			t.Errorf("result = %+v", out)
		}
	})

	t.Run("all or none", func(t *testing.T) {
		fake := &fakeInsertAll{answer: func(int, *bq.TableDataInsertAllRequest) (int, any) {
			return http.StatusOK, insertErrors(map[int][]map[string]string{
				0: stoppedRow, 1: invalid("a", "Cannot convert value to integer."), 2: stoppedRow, 3: stoppedRow, 4: stoppedRow,
			})
		}}
		s := newService(t, fake, Config{})
		out, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, rows)})
		if err != nil {
			t.Fatal(err)
		}
		// The stopped rows failed for row 1's sake: counted, not listed.
		if out.InsertedRows != 0 || out.FailedRows != 5 || len(out.Errors) != 1 || out.Errors[0].Index != 1 || !strings.Contains(out.Hint, "skipInvalidRows") {
			t.Errorf("result = %+v", out)
		}
	})

	t.Run("capped", func(t *testing.T) {
		all := map[int][]map[string]string{}
		for i := range 100 {
			all[i] = invalid("a", "bad")
		}
		fake := &fakeInsertAll{answer: func(int, *bq.TableDataInsertAllRequest) (int, any) { return http.StatusOK, insertErrors(all) }}
		s := newService(t, fake, Config{})
		out, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, "["+strings.Repeat(`{"a":"x"},`, 99)+`{"a":"x"}]`), SkipInvalidRows: true})
		if err != nil {
			t.Fatal(err)
		}
		if out.FailedRows != 100 || out.InsertedRows != 0 || len(out.Errors) != maxErrors || out.OmittedErrors != 100-maxErrors || out.Errors[maxErrors-1].Index != maxErrors-1 {
			t.Errorf("failed %d, inserted %d, %d errors listed, %d omitted", out.FailedRows, out.InsertedRows, len(out.Errors), out.OmittedErrors)
		}
	})
}

func TestLimitsAreCheckedBeforeAnyRequest(t *testing.T) {
	many := make([]map[string]any, DefaultMaxRows+1)
	for i := range many {
		many[i] = map[string]any{"a": json.Number("1")}
	}
	cases := []struct {
		name string
		in   Input
		want string
	}{
		{"no rows", Input{Table: "d.t"}, "rows is empty"},
		{"too many rows", Input{Table: "d.t", Rows: many}, "501 rows in one call; the limit is 500"},
		{"null row", Input{Table: "d.t", Rows: []map[string]any{{"a": 1}, nil}}, "row 1 is not an object"},
		{"wildcard table", Input{Table: "d.events_*", Rows: rowsOf(t, `[{"a":1}]`)}, "wildcard"},
		{"no dataset", Input{Table: "t", Rows: rowsOf(t, `[{"a":1}]`)}, "must include its dataset"},
		{"bad dataset", Input{Table: "d-x.t", Rows: rowsOf(t, `[{"a":1}]`)}, "dataset ID"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := &fakeInsertAll{}
			s := newService(t, fake, Config{})
			_, err := s.Insert(context.Background(), c.in)
			if code := codeOf(t, err); code != bqerr.InvalidArgument || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %s %v, want INVALID_ARGUMENT containing %q", code, err, c.want)
			}
			if e, _ := bqerr.As(err); e.Hint == "" {
				t.Errorf("no hint")
			}
			if n := fake.requests(); n != 0 {
				t.Errorf("%d requests, want none", n)
			}
		})
	}
}

// TestLimitsAreConfigurable checks the size limit with a small one: a 9 MiB
// body takes seconds to encode under the race detector.
func TestLimitsAreConfigurable(t *testing.T) {
	if got := newService(t, &fakeInsertAll{}, Config{}).cfg.Limits; got != (Limits{MaxRows: 500, MaxBytes: 9 << 20}) {
		t.Errorf("default limits = %+v, want 500 rows and 9 MiB", got)
	}
	fake := &fakeInsertAll{}
	s := newService(t, fake, Config{Limits: Limits{MaxRows: 2, MaxBytes: 1 << 10}})
	if _, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, `[{"a":1},{"a":2},{"a":3}]`)}); codeOf(t, err) != bqerr.InvalidArgument || !strings.Contains(err.Error(), "limit is 2") {
		t.Errorf("3 rows over a limit of 2: %v", err)
	}
	// 200 bytes of arguments that the wire encoding (HTML characters
	// escaped as \u003c) makes 1.2 KB: the limit is on what is sent.
	if _, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, `[{"a":"`+strings.Repeat("<", 200)+`"}]`)}); codeOf(t, err) != bqerr.InvalidArgument || !strings.Contains(err.Error(), "would be 1.2 KiB; the limit is 1.0 KiB") {
		t.Errorf("1.2 KB on the wire over a limit of 1 KiB: %v", err)
	}
	if n := fake.requests(); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

func TestAllowlistGatesInserts(t *testing.T) {
	allow, err := governance.ParseAllowlist("sales_*,other.shared", "p")
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeInsertAll{}
	s := newService(t, fake, Config{Datasets: allow})
	rows := rowsOf(t, `[{"a":1}]`)
	for _, table := range []string{"hr.t", "p.hr.t", "`p.hr.t`", "other.sales_eu.t", "p:hr.t", "p.shared.t"} {
		_, err := s.Insert(context.Background(), Input{Table: table, Rows: rows})
		if code := codeOf(t, err); code != bqerr.PermissionDenied {
			t.Errorf("%s: code %s, want PERMISSION_DENIED", table, code)
		} else if e, _ := bqerr.As(err); !strings.Contains(e.Hint, "p.sales_*") {
			t.Errorf("%s: hint %q does not name the allowed datasets", table, e.Hint)
		}
	}
	if n := fake.requests(); n != 0 {
		t.Fatalf("%d requests for refused tables, want none", n)
	}
	for _, table := range []string{"sales_eu.t", "p.sales_us.t", "other.shared.t"} {
		if _, err := s.Insert(context.Background(), Input{Table: table, Rows: rows}); err != nil {
			t.Errorf("%s: %v", table, err)
		}
	}
	if n := fake.requests(); n != 3 {
		t.Errorf("%d requests for allowed tables, want 3", n)
	}
}
