package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/stdio"
)

// instantQuery answers jobs.query at once with the five rows of the
// benchmark's small query (make bench's P1: order_id, status, total, n), and
// a dry run with a SELECT, so a benchmark measures only the server's own work.
// It is not bqfake on purpose: the fake runs in the benchmark's process, and
// its request log and body decoding would be counted in allocs/op (the
// figures docs/performance.md records).
func instantQuery(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/projects/p/queries":
		io.WriteString(w, `{"kind":"bigquery#queryResponse","jobReference":{"projectId":"p","jobId":"bqmcp_bench","location":"US"},"jobComplete":true,"totalRows":"5","totalBytesProcessed":"120","totalBytesBilled":"10485760","cacheHit":false,`+
			`"schema":{"fields":[{"name":"order_id","type":"INTEGER","mode":"NULLABLE"},{"name":"status","type":"STRING","mode":"NULLABLE"},{"name":"total","type":"NUMERIC","mode":"NULLABLE"},{"name":"n","type":"INTEGER","mode":"NULLABLE"}]},`+
			`"rows":[{"f":[{"v":"1001"},{"v":"shipped"},{"v":"59.97"},{"v":"1"}]},{"f":[{"v":"1002"},{"v":"pending"},{"v":"12.5"},{"v":"1"}]},{"f":[{"v":"1003"},{"v":"shipped"},{"v":"120"},{"v":"1"}]},{"f":[{"v":"1004"},{"v":"cancelled"},{"v":"8.99"},{"v":"1"}]},{"f":[{"v":"1005"},{"v":"delivered"},{"v":"42"},{"v":"1"}]}]}`)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/jobs"):
		io.WriteString(w, `{"kind":"bigquery#job","jobReference":{"projectId":"p","location":"US"},"configuration":{"dryRun":true},"status":{"state":"DONE"},"statistics":{"totalBytesProcessed":"120","query":{"statementType":"SELECT","totalBytesProcessed":"120","schema":{"fields":[{"name":"order_id","type":"INTEGER"}]}}}}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":404,"message":"no fake for this path","errors":[{"reason":"notFound"}]}}`)
	}
}

// BenchmarkExecuteSQL is the server's own time for one small read-only
// execute_sql with a warm verdict, as the binary runs it (telemetry Setup
// with no exporter, an INFO logger, the default middleware), end to end
// through an MCP client session, against a BigQuery that answers at once.
// Profile it with -cpuprofile to see where the per-call overhead goes.
func BenchmarkExecuteSQL(b *testing.B) {
	benchmarkCalls(b, benchBackend(b).MCP, "execute_sql")
}

// BenchmarkExecuteSQLStdio is BenchmarkExecuteSQL's call as the binary
// serves it over stdio: the server built the same way, behind the stdio
// transport on pipes, fed request lines as a host writes them (protocol
// 2025-06-18, what hosts speak) and read back as lines. No MCP client runs
// in the process, so ns/op, B/op and allocs/op are the server's side
// alone (and the instant BigQuery's): what make bench's "server own"
// counts in the server process.
func BenchmarkExecuteSQLStdio(b *testing.B) {
	backend := benchBackend(b)
	ctx := context.Background()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := backend.MCP.Connect(ctx, SuppressCancelled(&stdio.Transport{Reader: inR, Writer: outW}), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { inW.Close(); ss.Wait() }()
	out := bufio.NewReaderSize(outR, 64<<10)
	roundTrip := func(line string) []byte {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			b.Fatal(err)
		}
		reply, err := out.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		return reply
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	call := func(id int) {
		reply := roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"execute_sql","arguments":{"sql":"SELECT order_id, status, total, 1 AS n FROM `+"`p.shop.orders`"+` ORDER BY order_id"}}}`, id))
		if !strings.Contains(string(reply), `"structuredContent":{"jobId"`) {
			b.Fatalf("reply %s", reply)
		}
	}
	call(1)
	b.ReportAllocs()
	id := 1
	for b.Loop() {
		id++
		call(id)
	}
}

// benchBackend is the server as the binary builds it (telemetry Setup with
// no exporter, an INFO logger, the default middleware) against a BigQuery
// that answers at once.
func benchBackend(b *testing.B) *Backend {
	srv := httptest.NewServer(http.HandlerFunc(instantQuery))
	b.Cleanup(srv.Close)
	log := observability.NewLogger(io.Discard, observability.LogOptions{Level: slog.LevelInfo, Redact: bqerr.Redact})
	ctx := context.Background()
	// Providers passed in, so the machine's OTEL_* variables do not matter;
	// noop is what Setup builds by default.
	tel, err := observability.Setup(ctx, observability.Options{Logger: log, Redact: bqerr.Redact,
		MeterProvider: metricnoop.NewMeterProvider(), TracerProvider: tracenoop.NewTracerProvider()})
	if err != nil {
		b.Fatal(err)
	}
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth, cfg.Logger, cfg.Telemetry = "p", srv.URL, auth.None, log, tel
	backend, err := Build(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { backend.Close() })
	return backend
}

// BenchmarkCannedToolCall is the same round trip for a tool that answers
// at once with execute_sql's result for those rows: what the MCP session
// (both ends of it) costs, without BigQuery or the tool's own work.
// BenchmarkExecuteSQL minus this is the execute_sql path itself.
func BenchmarkCannedToolCall(b *testing.B) {
	result := json.RawMessage(`{"jobId":"bqmcp_bench","location":"US","schema":[{"name":"order_id","type":"INT64","mode":"NULLABLE"},{"name":"status","type":"STRING","mode":"NULLABLE"},{"name":"total","type":"NUMERIC","mode":"NULLABLE"},{"name":"n","type":"INT64","mode":"NULLABLE"}],` +
		`"rows":[[1001,"shipped","59.97",1],[1002,"pending","12.5",1],[1003,"shipped","120",1],[1004,"cancelled","8.99",1],[1005,"delivered","42",1]],"totalRows":5,"bytesProcessed":120,"bytesBilled":10485760,"statementType":"SELECT"}`)
	spec := newTool(&mcp.Tool{Name: "canned"}, func(context.Context, query.ExecuteInput) (json.RawMessage, error) { return result, nil })
	spec.describe()
	s := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
	s.AddTool(spec.tool, mcpHandler(spec.handler))
	benchmarkCalls(b, s, "canned")
}

// benchmarkCalls times calls of tool with the benchmark's small query over
// an in-memory MCP session, after one untimed call (connections, the
// read-only verdict).
func benchmarkCalls(b *testing.B, s *mcp.Server, tool string) {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"sql": "SELECT order_id, status, total, 1 AS n FROM `p.shop.orders` ORDER BY order_id"}}
	call := func() {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError {
			b.Fatalf("%s failed: %v", tool, res.Content[0].(*mcp.TextContent).Text)
		}
	}
	call()
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}

// BenchmarkNewServer is building the MCP server (tool definitions, their
// input schemas, registration with the SDK): part of every start before
// the first answer.
func BenchmarkNewServer(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		New(Services{}, Config{})
	}
}
