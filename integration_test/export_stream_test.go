package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// streamRows is how many rows streamQuery makes: each id 1..streamRows
// once, its label derived from it.
const streamRows = 10000

const streamQuery = `SELECT n AS id, CONCAT('row ', CAST(n AS STRING)) AS label FROM UNNEST(GENERATE_ARRAY(1, 10000)) AS n`

// startFront starts a Storage Read front of the test's own.
func startFront(t *testing.T, opts emulator.StorageOptions) *emulator.StorageFront {
	t.Helper()
	f, err := emu.StartStorageFront(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// exportedIDs reads an exported streamQuery file back (Parquet with
// Arrow), checks every label against its id, and fails unless each id
// 1..streamRows is there exactly once.
func exportedIDs(t *testing.T, path, format string) {
	t.Helper()
	type row struct {
		ID    int64  `json:"id"`
		Label string `json:"label"`
	}
	var got []row
	switch format {
	case "jsonl":
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var r row
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			got = append(got, r)
		}
	case "csv":
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || len(recs) == 0 || strings.Join(recs[0], ",") != "id,label" {
			t.Fatalf("csv: %v, header %v", err, recs[:min(len(recs), 1)])
		}
		for _, r := range recs[1:] {
			id, err := strconv.ParseInt(r[0], 10, 64)
			if err != nil {
				t.Fatalf("csv id %q", r[0])
			}
			got = append(got, row{id, r[1]})
		}
	case "parquet":
		tbl := readParquet(t, path)
		defer tbl.Release()
		tr := array.NewTableReader(tbl, 4096)
		defer tr.Release()
		for tr.Next() {
			rec := tr.Record()
			ids, labels := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
			for i := 0; i < ids.Len(); i++ {
				got = append(got, row{ids.Value(i), labels.Value(i)})
			}
		}
	}
	seen := make([]bool, streamRows+1)
	for _, r := range got {
		if r.ID < 1 || r.ID > streamRows {
			t.Fatalf("id %d is not one of the query's", r.ID)
		}
		if seen[r.ID] {
			t.Fatalf("id %d exported twice", r.ID)
		}
		seen[r.ID] = true
		if want := fmt.Sprintf("row %d", r.ID); r.Label != want {
			t.Fatalf("id %d: label %q, want %q", r.ID, r.Label, want)
		}
	}
	if len(got) != streamRows {
		t.Fatalf("%s file has %d rows, want %d", format, len(got), streamRows)
	}
}

// TestExportResumesAfterAStreamFault: the Storage Read stream breaks with
// UNAVAILABLE after three of its ten batches; the client library asks for
// the stream again from its offset (3,000 rows), and the export completes
// with every row exactly once, in each format, without starting over (one
// read session, one file written once).
func TestExportResumesAfterAStreamFault(t *testing.T) {
	for _, format := range []string{"jsonl", "csv", "parquet"} {
		t.Run(format, func(t *testing.T) {
			front := startFront(t, emulator.StorageOptions{BatchRows: streamRows / 10, FailAfterBatches: 3})
			cs := connect(t, exportConfigAt(t, nil, front.Addr), "")
			start := time.Now()
			out := exportResult(t, cs, map[string]any{"sql": streamQuery, "format": format})
			t.Logf("%s: %d rows in %s, read offsets %v", format, out.Rows, time.Since(start).Round(time.Millisecond), front.ReadOffsets())
			if out.Rows != streamRows || out.ReadAPI != "storage" {
				t.Fatalf("export = %+v, want %d rows read through the Storage Read API", out, streamRows)
			}
			if front.Faults() != 1 {
				t.Fatalf("the fault fired %d times, want once", front.Faults())
			}
			if got := fmt.Sprint(front.ReadOffsets()); got != "[0 3000]" {
				t.Errorf("ReadRows offsets %s, want [0 3000]: the stream resumed where it broke", got)
			}
			if front.Sessions() != 1 {
				t.Errorf("%d read sessions, want 1: the export started over", front.Sessions())
			}
			if front.Batches() != 10 {
				t.Errorf("%d batches sent, want 10", front.Batches())
			}
			exportedIDs(t, filePath(t, out.URI), format)
		})
	}
}

// clientCancel cancels a slow export's call once its partial file is
// there; see TestExportCancelLeavesNothing.
func clientCancel(t *testing.T, slow emulator.StorageOptions, partial func(*testing.T, *emulator.StorageFront, string), format string) {
	front := startFront(t, slow)
	cfg := exportConfigAt(t, nil, front.Addr)
	cs := connect(t, cfg, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	name := "cancelled." + format
	args := map[string]any{"sql": streamQuery, "format": format, "name": name}
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "export_results", Arguments: args})
		done <- err
	}()
	partial(t, front, cfg.Export.Dir)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v, want context.Canceled", err)
	}
	waitFor(t, func() bool { return front.Cancelled() == 1 && len(exportDirEntries(t, cfg.Export.Dir)) == 0 })
	sent := front.Batches()
	time.Sleep(300 * time.Millisecond)
	if front.Batches() != sent || sent >= 100 {
		t.Errorf("%d batches sent, then %d: the read went on after the cancel", sent, front.Batches())
	}
	t.Logf("cancelled after %d of 100 batches; export dir empty", sent)

	out := exportResult(t, cs, args)
	if out.Rows != streamRows || filepath.Base(filePath(t, out.URI)) != name {
		t.Fatalf("export after the cancel = %+v", out)
	}
	exportedIDs(t, filePath(t, out.URI), format)
}

// TestExportGivesUpOnABrokenStream: a read stream that fails with
// UNAVAILABLE on every attempt, before its first batch. The client
// library would ask for it again forever (it retries UNAVAILABLE without a
// cap); the export gives a read up after Export.StallTimeout without a
// row, and the export operation's policy (3 attempts) reads again from a
// new session, then fails with a retryable UNAVAILABLE that says so. No
// file remains. Without the stall watch the call hung until the client
// gave up.
func TestExportGivesUpOnABrokenStream(t *testing.T) {
	for _, format := range []string{"jsonl", "parquet"} {
		t.Run(format, func(t *testing.T) {
			front := startFront(t, emulator.StorageOptions{FailAlways: true})
			cfg := exportConfigAt(t, nil, front.Addr)
			cfg.Export.StallTimeout = 2 * time.Second
			cs := connect(t, cfg, "")
			start := time.Now()
			e := fails(t, cs, "export_results", map[string]any{"sql": streamQuery, "format": format})
			took := time.Since(start)
			t.Logf("after %s, %d faults: %s %q (hint %q)", took.Round(time.Millisecond), front.Faults(), e.Code, e.Message, e.Hint)
			if e.Code != bqerr.Unavailable || !e.Retryable || e.Details.Attempts != 3 || !strings.Contains(e.Message, "sent nothing") {
				t.Errorf("error %s %q (retryable %v, attempts %d), want a retryable UNAVAILABLE after 3 attempts saying the stream sent nothing",
					e.Code, e.Message, e.Retryable, e.Details.Attempts)
			}
			if front.Sessions() != 3 || front.Batches() != 0 {
				t.Errorf("%d read sessions, %d batches; want 3 sessions (one per attempt), none", front.Sessions(), front.Batches())
			}
			if took > 40*time.Second {
				t.Errorf("took %s", took)
			}
			waitFor(t, func() bool { return len(exportDirEntries(t, cfg.Export.Dir)) == 0 })
		})
	}
}

// exportDirEntries lists what is in dir, temporary files included.
func exportDirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestExportCancelLeavesNothing: an export whose stream is slow (100
// batches, 20 ms each) is stopped in the middle, with a partial file
// already in --export-dir.
//   - A client cancel (notifications/cancelled), of a CSV and of a
//     Parquet export: the read stream is closed at the server, no file nor
//     temporary file remains, and the same export then succeeds under the
//     same name.
//   - SIGTERM to the built binary (stdio): it exits 0 within seconds and
//     leaves no file nor temporary file.
//   - The export's time limit (the export operation's Timeout, which has
//     no flag): the call fails with DEADLINE_EXCEEDED and a message
//     saying so, and nothing remains either.
//
// Whether the query job is cancelled is TestRunToTableCancelsItsJob's
// (package query): the emulator's queries finish inside jobs.insert, so
// here the cancel always lands in the read.
func TestExportCancelLeavesNothing(t *testing.T) {
	slow := emulator.StorageOptions{BatchRows: streamRows / 100, BatchDelay: 20 * time.Millisecond}
	// partial waits until the export has sent 10 batches and its
	// temporary file is there.
	partial := func(t *testing.T, front *emulator.StorageFront, dir string) {
		t.Helper()
		waitFor(t, func() bool {
			names := exportDirEntries(t, dir)
			return front.Batches() >= 10 && len(names) == 1 && strings.HasSuffix(names[0], ".tmp")
		})
	}

	for _, format := range []string{"csv", "parquet"} {
		t.Run("client cancel "+format, func(t *testing.T) {
			clientCancel(t, slow, partial, format)
		})
	}

	t.Run("SIGTERM", func(t *testing.T) {
		front := startFront(t, slow)
		dir := filepath.Join(t.TempDir(), "exports")
		cmd, cs := startStdio(t, "--endpoint", emu.URL, "--project", emulator.Project,
			"--toolsets", "query,export", "--export-dir", dir, "--storage-endpoint", front.Addr)
		go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "export_results", Arguments: map[string]any{"sql": streamQuery, "format": "jsonl"}})
		partial(t, front, dir)
		took := signalAndWait(t, cmd, syscall.SIGTERM)
		t.Logf("exited %s after SIGTERM, after %d of 100 batches", took.Round(time.Millisecond), front.Batches())
		if names := exportDirEntries(t, dir); len(names) != 0 {
			t.Errorf("SIGTERM left %v in --export-dir", names)
		}
		if front.Batches() >= 100 {
			t.Errorf("the whole stream was sent (%d batches)", front.Batches())
		}
	})

	t.Run("time limit", func(t *testing.T) {
		front := startFront(t, slow)
		cfg := exportConfigAt(t, nil, front.Addr)
		cfg.Resilience.Retry = maps.Clone(cfg.Resilience.Retry)
		p := cfg.Resilience.Retry[resilience.Export]
		p.Attempts, p.Timeout = 1, time.Second
		cfg.Resilience.Retry[resilience.Export] = p
		cs := connect(t, cfg, "")
		start := time.Now()
		e := fails(t, cs, "export_results", map[string]any{"sql": streamQuery, "format": "jsonl", "name": "late.jsonl"})
		t.Logf("after %s: %s %q (hint %q)", time.Since(start).Round(time.Millisecond), e.Code, e.Message, e.Hint)
		if e.Code != bqerr.DeadlineExceeded {
			t.Errorf("code %s, want DEADLINE_EXCEEDED", e.Code)
		}
		if !strings.Contains(strings.ToLower(e.Message+" "+e.Hint), "time") || e.Details.JobID == "" {
			t.Errorf("error %q (hint %q, job %q) does not say the export ran out of time, or for which job", e.Message, e.Hint, e.Details.JobID)
		}
		if front.Batches() >= 100 {
			t.Errorf("the whole stream was sent (%d batches)", front.Batches())
		}
		waitFor(t, func() bool { return len(exportDirEntries(t, cfg.Export.Dir)) == 0 })
	})
}
