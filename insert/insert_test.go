package insert

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// wireRows returns the rows of insertAll request i as sent: insertId and
// raw json.
func wireRows(t *testing.T, fake *bqfake.Fake, i int) []struct {
	InsertID string          `json:"insertId"`
	JSON     json.RawMessage `json:"json"`
} {
	t.Helper()
	var req struct {
		Rows []struct {
			InsertID string          `json:"insertId"`
			JSON     json.RawMessage `json:"json"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(fake.Requests(bqfake.TabledataInsertAll)[i].Raw, &req); err != nil {
		t.Fatal(err)
	}
	return req.Rows
}

// newService returns a Service talking to fake through resilience.Transport
// (so the client library retries nothing), under the default write policy
// (2 attempts) with millisecond waits.
func newService(t *testing.T, fake *bqfake.Fake, cfg Config) *Service {
	t.Helper()
	hc := &http.Client{Transport: &resilience.Transport{}}
	rest := fake.REST(t, hc)
	t.Cleanup(hc.CloseIdleConnections)
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
	fake := bqfake.New(t)
	fake.On(bqfake.TabledataInsertAll).Times(1).Fail(http.StatusServiceUnavailable, "backendError")
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
	if n := fake.Count(bqfake.Any); n != 2 {
		t.Fatalf("%d requests at the wire, want 2 (one failed, one retried)", n)
	}
	if r := fake.Requests(bqfake.Any)[0]; r.Method+" "+r.Path != "POST /projects/p/datasets/d/tables/t/insertAll" {
		t.Errorf("path = %s %s", r.Method, r.Path)
	}
	first, second := wireRows(t, fake, 0), wireRows(t, fake, 1)
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
	fake := bqfake.New(t)
	fake.On(bqfake.TabledataInsertAll).Fail(http.StatusServiceUnavailable, "backendError")
	s := newService(t, fake, Config{})
	_, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, `[{"a":1}]`)})
	if code := codeOf(t, err); code != bqerr.Unavailable {
		t.Errorf("code = %s, want UNAVAILABLE", code)
	}
	if n := fake.Count(bqfake.Any); n != 2 {
		t.Errorf("%d requests, want the write policy's 2", n)
	}
}

func TestNotFoundIsNotRetried(t *testing.T) {
	fake := bqfake.New(t)
	fake.On(bqfake.TabledataInsertAll).FailWith(bqfake.Errorf(http.StatusNotFound, "notFound", "Not found: Table p:d.t"))
	s := newService(t, fake, Config{})
	_, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, `[{"a":1}]`)})
	if code := codeOf(t, err); code != bqerr.NotFound {
		t.Errorf("code = %s, want NOT_FOUND", code)
	}
	if n := fake.Count(bqfake.Any); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// insertErrors answers as BigQuery does: each listed index with its errors.
func insertErrors(byIndex map[int][]*bq.ErrorProto) *bq.TableDataInsertAllResponse {
	out := &bq.TableDataInsertAllResponse{Kind: "bigquery#tableDataInsertAllResponse"}
	for i, errs := range byIndex {
		out.InsertErrors = append(out.InsertErrors, &bq.TableDataInsertAllResponseInsertErrors{Index: int64(i), Errors: errs})
	}
	return out
}

func TestRowErrorsKeepTheirIndex(t *testing.T) {
	invalid := func(field, msg string) []*bq.ErrorProto {
		return []*bq.ErrorProto{{Reason: "invalid", Location: field, Message: msg}}
	}
	stoppedRow := []*bq.ErrorProto{{Reason: "stopped"}}
	rows := `[{"a":1},{"a":"x"},{"a":3},{"b":4},{"a":5}]`

	t.Run("skipInvalidRows", func(t *testing.T) {
		fake := bqfake.New(t)
		fake.On(bqfake.TabledataInsertAll).ReplyFunc(func(r *bqfake.Request) (any, error) {
			if req := r.InsertAll; !req.SkipInvalidRows || !req.IgnoreUnknownValues {
				t.Errorf("flags not sent: skip=%v ignore=%v", req.SkipInvalidRows, req.IgnoreUnknownValues)
			}
			return insertErrors(map[int][]*bq.ErrorProto{
				3: invalid("b", "no such field: b."),
				1: invalid("a", "Cannot convert value to integer."),
			}), nil
		})
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
		fake := bqfake.New(t)
		fake.On(bqfake.TabledataInsertAll).Reply(insertErrors(map[int][]*bq.ErrorProto{
			0: stoppedRow, 1: invalid("a", "Cannot convert value to integer."), 2: stoppedRow, 3: stoppedRow, 4: stoppedRow,
		}))
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
		all := map[int][]*bq.ErrorProto{}
		for i := range 100 {
			all[i] = invalid("a", "bad")
		}
		fake := bqfake.New(t)
		fake.On(bqfake.TabledataInsertAll).Reply(insertErrors(all))
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
			fake := bqfake.New(t)
			s := newService(t, fake, Config{})
			_, err := s.Insert(context.Background(), c.in)
			if code := codeOf(t, err); code != bqerr.InvalidArgument || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %s %v, want INVALID_ARGUMENT containing %q", code, err, c.want)
			}
			if e, _ := bqerr.As(err); e.Hint == "" {
				t.Errorf("no hint")
			}
			if n := fake.Count(bqfake.Any); n != 0 {
				t.Errorf("%d requests, want none", n)
			}
		})
	}
}

// TestLimitsAreConfigurable checks the size limit with a small one: a 9 MiB
// body takes seconds to encode under the race detector.
func TestLimitsAreConfigurable(t *testing.T) {
	if got := newService(t, bqfake.New(t), Config{}).cfg.Limits; got != (Limits{MaxRows: 500, MaxBytes: 9 << 20}) {
		t.Errorf("default limits = %+v, want 500 rows and 9 MiB", got)
	}
	fake := bqfake.New(t)
	s := newService(t, fake, Config{Limits: Limits{MaxRows: 2, MaxBytes: 1 << 10}})
	if _, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, `[{"a":1},{"a":2},{"a":3}]`)}); codeOf(t, err) != bqerr.InvalidArgument || !strings.Contains(err.Error(), "limit is 2") {
		t.Errorf("3 rows over a limit of 2: %v", err)
	}
	// 200 bytes of arguments that the wire encoding (HTML characters
	// escaped as \u003c) makes 1.2 KB: the limit is on what is sent.
	if _, err := s.Insert(context.Background(), Input{Table: "d.t", Rows: rowsOf(t, `[{"a":"`+strings.Repeat("<", 200)+`"}]`)}); codeOf(t, err) != bqerr.InvalidArgument || !strings.Contains(err.Error(), "would be 1.2 KiB; the limit is 1.0 KiB") {
		t.Errorf("1.2 KB on the wire over a limit of 1 KiB: %v", err)
	}
	if n := fake.Count(bqfake.Any); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

func TestAllowlistGatesInserts(t *testing.T) {
	allow, err := governance.ParseAllowlist("sales_*,other.shared", "p")
	if err != nil {
		t.Fatal(err)
	}
	fake := bqfake.New(t)
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
	if n := fake.Count(bqfake.Any); n != 0 {
		t.Fatalf("%d requests for refused tables, want none", n)
	}
	for _, table := range []string{"sales_eu.t", "p.sales_us.t", "other.shared.t"} {
		if _, err := s.Insert(context.Background(), Input{Table: table, Rows: rows}); err != nil {
			t.Errorf("%s: %v", table, err)
		}
	}
	if n := fake.Count(bqfake.Any); n != 3 {
		t.Errorf("%d requests for allowed tables, want 3", n)
	}
}
