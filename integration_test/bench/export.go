package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
)

// wideTable makes P5's table: n rows of ten columns of the common types
// (INT64, STRING, FLOAT64, BOOL, NUMERIC, DATE, TIMESTAMP, a STRING with
// NULLs), about 100 bytes a row as CSV.
const wideTable = "CREATE TABLE `demo-project.shop.wide_%[1]d` AS SELECT x AS id, " +
	"CONCAT('customer-', CAST(MOD(x, 9973) AS STRING)) AS customer, " +
	"x * 1.5 AS amount, " +
	"MOD(x, 100) AS quantity, " +
	"MOD(x, 3) = 0 AS paid, " +
	"CAST(x AS NUMERIC) / 100 AS price, " +
	"DATE_ADD(DATE '2020-01-01', INTERVAL MOD(x, 3650) DAY) AS day, " +
	"TIMESTAMP_ADD(TIMESTAMP '2024-01-01 00:00:00+00', INTERVAL x SECOND) AS ts, " +
	"IF(MOD(x, 10) = 0, NULL, CONCAT('note ', CAST(x AS STRING))) AS note, " +
	"MOD(x * 7919, 1000003) AS score " +
	"FROM UNNEST(GENERATE_ARRAY(1, %[1]d)) AS x"

// p5 exports a 10-column table of each -export-rows count to Parquet and
// to CSV with export_results, against reading the same result through
// getQueryResults pages, and reads the server's peak RSS during each
// export. Each export runs in a server process of its own (export), so
// its peak is that of one export; a server per row count runs the queries
// and the get_query_results paging.
//
// Both sides read a result that is already computed, so the query is not
// in the timed figures (it is printed once): the exports name the jobId
// of a query that export_results ran (jobs.insert, whose result table the
// Storage Read API reads), the paging reads the job of an execute_sql of
// the same SELECT (jobs.query, whose rows integration_test/emulator's job
// store keeps and pages). The store also cuts the emulator's own jobs'
// getQueryResults at maxResults (v0.6.6 sends every row), but pages them
// by decoding the whole result again for each page.
func (b *bench) p5(ctx context.Context, _ *serverProc) error {
	front, err := b.emu.StartStorageFront(emulator.StorageOptions{BatchRows: b.o.batchRows})
	if err != nil {
		return fmt.Errorf("Storage Read API: %w", err)
	}
	defer front.Close()
	svc, err := bq.NewService(ctx, option.WithEndpoint(b.wire.URL), option.WithoutAuthentication())
	if err != nil {
		return err
	}
	fmt.Printf("the timed figures read an already computed result (no query); %d rounds per row count, interleaved: Parquet, CSV, getQueryResults paging, the harness's own Storage Read\n", b.o.exportRounds)
	fmt.Println("each export runs in a fresh server process (export by jobId): its peak RSS (VmHWM) is that of its start and one export")
	fmt.Printf("Storage Read API: one stream (the emulator serves one), record batches of %d rows\n", b.o.batchRows)
	fmt.Printf("paging baseline: the REST library (google.golang.org/api/bigquery/v2, under cloud.google.com/go/bigquery) getQueryResults with maxResults=%d and pageToken, rows decoded, not converted\n", b.o.pageRows)
	var summary []string
	for _, n := range b.o.exportRows {
		s, err := b.exportRound(ctx, svc, front, n)
		if err != nil {
			return fmt.Errorf("%d rows: %w", n, err)
		}
		summary = append(summary, s...)
	}
	fmt.Println("\nsummary (median of the rounds):")
	for _, s := range summary {
		fmt.Println(s)
	}
	return nil
}

func (b *bench) exportRound(ctx context.Context, svc *bq.Service, front *emulator.StorageFront, n int) ([]string, error) {
	storage := front.Addr
	fmt.Printf("\n-- %d rows x 10 columns\n", n)
	start := time.Now()
	if err := b.read(ctx, fmt.Sprintf(wideTable, n)); err != nil {
		return nil, fmt.Errorf("creating the table: %w", err)
	}
	fmt.Printf("table created (CREATE TABLE AS SELECT on the emulator) in %s\n", time.Since(start).Round(time.Millisecond))

	dir, err := os.MkdirTemp("", "bqmcp-bench-export-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	flags := []string{"--toolsets", "query,jobs,export", "--export-dir", dir, "--storage-endpoint", storage,
		"--query-timeout", "30m", "--max-query-timeout", "30m", "--max-wait", "30m", "--log-level", "warn"}
	p, err := b.start(ctx, flags...)
	if err != nil {
		return nil, err
	}
	defer p.close()
	rss, _, err := memory(p.pid())
	if err != nil {
		return nil, err
	}
	fmt.Printf("fresh server (export toolset): RSS %s\n", mb(rss))

	sql := fmt.Sprintf("SELECT * FROM `demo-project.shop.wide_%d`", n)
	long := map[string]any{"waitSeconds": 1800, "timeoutSeconds": 1800}

	// The paging side's job: execute_sql's jobs.query, one row returned.
	start = time.Now()
	out, err := p.call(ctx, "execute_sql", with(long, "sql", sql, "maxRows", 1))
	if err != nil {
		return nil, err
	}
	pagedJob, _ := out["jobId"].(string)
	if total, _ := out["totalRows"].(float64); int(total) != n || pagedJob == "" {
		return nil, fmt.Errorf("execute_sql: totalRows %v, jobId %q", out["totalRows"], pagedJob)
	}
	fmt.Printf("execute_sql (jobs.query, the paging side's job): %s\n", time.Since(start).Round(time.Millisecond))

	// The exporting side's job: export_results with the SQL runs it
	// (jobs.insert) and exports it once.
	reset(p.pid())
	start = time.Now()
	out, err = p.call(ctx, "export_results", map[string]any{"sql": sql, "format": "parquet", "name": "with-query.parquet"})
	if err != nil {
		return nil, err
	}
	_, peak, _ := memory(p.pid())
	exportJob, _ := out["jobId"].(string)
	fmt.Printf("export_results with the query (jobs.insert + read + write, Parquet): %s, server peak RSS %s, read via %v\n",
		time.Since(start).Round(time.Millisecond), mb(peak), out["readApi"])
	fmt.Println("  (the query's wait is getQueryResults maxResults=1: one row, as on BigQuery, since the job store cuts the emulator's answer)")

	// The floor of the exporting side: the same result table read by a
	// client of the harness's own through the same Storage Read front.
	table, err := b.resultTable(ctx, exportJob)
	if err != nil {
		return nil, err
	}

	var parquet, csv, paged, tool, arrowRead, rowRead sample
	var parquetPeak, csvPeak []int64
	var parquetCPU, csvCPU sample
	var toolPeak []int64
	var toolCPU sample
	var requests [2]string
	var sizes [2]float64
	for r := range b.o.exportRounds {
		for i, format := range []string{"parquet", "csv"} {
			profile := ""
			if b.o.perf != "" && r == 0 {
				profile = filepath.Join(b.o.perf, fmt.Sprintf("%s-%d.data", format, n))
			}
			sessions, batches := front.Sessions(), front.Batches()
			d, peak, cpu, size, err := b.export(ctx, flags, exportJob, format, fmt.Sprintf("round%d.%s", r, format), n, profile)
			if err != nil {
				return nil, err
			}
			reqs, _ := b.wire.seen()
			requests[i] = fmt.Sprintf("%d REST (%s), %d read session, %d record batches on one ReadRows stream",
				len(reqs), strings.Join(reqs, ", "), front.Sessions()-sessions, front.Batches()-batches)
			sizes[i] = size
			if format == "parquet" {
				parquet, parquetPeak, parquetCPU = append(parquet, d), append(parquetPeak, peak), append(parquetCPU, cpu)
			} else {
				csv, csvPeak, csvCPU = append(csv, d), append(csvPeak, peak), append(csvCPU, cpu)
			}
		}
		d, pages, err := b.page(ctx, svc, pagedJob, n)
		if err != nil {
			return nil, err
		}
		paged = append(paged, d)
		da, dr, err := b.storageRead(ctx, storage, table, n)
		if err != nil {
			return nil, err
		}
		arrowRead, rowRead = append(arrowRead, da), append(rowRead, dr)
		fmt.Printf("round %d: Parquet %s (peak %s, server CPU %s), CSV %s (peak %s, server CPU %s), getQueryResults %s in %d pages; harness Storage Read: Arrow %s, rows %s\n",
			r+1, secs(parquet[r]), mb(parquetPeak[r]), secs(parquetCPU[r]), secs(csv[r]), mb(csvPeak[r]), secs(csvCPU[r]), secs(d), pages, secs(da), secs(dr))
	}
	fmt.Printf("files: Parquet %.1f MB, CSV %.1f MB\n", sizes[0]/(1<<20), sizes[1]/(1<<20))
	fmt.Printf("requests per export: Parquet %s; CSV %s\n", requests[0], requests[1])
	if b.o.toolPageMax > 0 && n <= b.o.toolPageMax {
		d, calls, peak, cpu, err := b.toolPages(ctx, flags, pagedJob, n)
		if err != nil {
			return nil, err
		}
		tool, toolPeak, toolCPU = append(tool, d), append(toolPeak, peak), append(toolCPU, cpu)
		fmt.Printf("get_query_results tool in a fresh server (maxRows 10000, the default --max-result-bytes): %s in %d calls, peak RSS %s, server CPU %s\n", secs(d), calls, mb(peak), secs(cpu))
	}
	base := paged.quantile(.5)
	line := func(name string, s sample, peak []int64, cpu sample) string {
		out := fmt.Sprintf("%9d rows  %-34s %9.0f rows/s  %6s the paging path", n, name, rowsPerSec(n, s.quantile(.5)), ratio(base, s.quantile(.5)))
		if peak != nil {
			out += fmt.Sprintf("  server peak RSS %s, server CPU %s", mb(slicesMax(peak)), secs(cpu.quantile(.5)))
		}
		return out
	}
	summary := []string{
		line("export_results Parquet", parquet, parquetPeak, parquetCPU),
		line("export_results CSV", csv, csvPeak, csvCPU),
		line("getQueryResults pages", paged, nil, nil),
		line("harness Storage Read, Arrow only", arrowRead, nil, nil),
		line("harness Storage Read, rows []Value", rowRead, nil, nil),
	}
	if len(tool) > 0 {
		summary = append(summary, line("get_query_results tool", tool, toolPeak, toolCPU))
	}
	return summary, nil
}

// export exports jobID's result by its jobId from a fresh server started
// with flags (a stdio server without an allowlist reads jobs it did not
// start), so that the process's peak RSS (VmHWM) is that of one export
// and its start. It returns the call's time, that peak, the CPU the
// server used during the call and the file's size. With profile set, perf
// records the server's stacks during the call there.
func (b *bench) export(ctx context.Context, flags []string, jobID, format, name string, n int, profile string) (d time.Duration, peak int64, cpu time.Duration, size float64, err error) {
	p, err := b.start(ctx, flags...)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer p.close()
	var perf *exec.Cmd
	if profile != "" {
		perf = exec.Command("perf", "record", "-q", "-g", "-F", "499", "-p", strconv.Itoa(p.pid()), "-o", profile)
		perf.Stderr = os.Stderr
		if err := perf.Start(); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("perf: %w", err)
		}
		time.Sleep(300 * time.Millisecond) // perf attaches
	}
	cpu0 := cpuTime(p.pid())
	b.wire.reset()
	start := time.Now()
	out, err := p.call(ctx, "export_results", map[string]any{"jobId": jobID, "format": format, "name": name})
	d = time.Since(start)
	cpu = cpuTime(p.pid()) - cpu0
	_, peak, merr := memory(p.pid())
	if perf != nil {
		perf.Process.Signal(os.Interrupt)
		perf.Wait()
	}
	if err == nil {
		err = merr
	}
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if rows, _ := out["rows"].(float64); int(rows) != n {
		return 0, 0, 0, 0, fmt.Errorf("export_results %s wrote %v rows, want %d", format, out["rows"], n)
	}
	size, _ = out["bytes"].(float64)
	if uri, _ := out["uri"].(string); uri != "" {
		os.Remove(filepath.FromSlash(strings.TrimPrefix(uri, "file://")))
	}
	return d, peak, cpu, size, nil
}

// resultTable is the destination table of the query job jobID.
func (b *bench) resultTable(ctx context.Context, jobID string) (*bigquery.TableMetadata, error) {
	job, err := b.raw.JobFromID(ctx, jobID)
	if err != nil {
		return nil, fmt.Errorf("jobs.get: %w", err)
	}
	cfg, err := job.Config()
	if err != nil {
		return nil, err
	}
	q, ok := cfg.(*bigquery.QueryConfig)
	if !ok || q.Dst == nil {
		return nil, fmt.Errorf("job %s names no destination table", jobID)
	}
	return &bigquery.TableMetadata{Name: q.Dst.ProjectID + "." + q.Dst.DatasetID + "." + q.Dst.TableID}, nil
}

// storageRead reads table (TableMetadata.Name is project.dataset.table)
// through the Storage Read API with a client of the harness's own, twice:
// the Arrow record batches only, as the Parquet export reads them (the
// emulator, the front and the transport: the floor of an export), then every row as []bigquery.Value
// (what the CSV and JSON Lines exports decode before they encode).
func (b *bench) storageRead(ctx context.Context, endpoint string, table *bigquery.TableMetadata, n int) (arrowOnly, rows time.Duration, err error) {
	c, err := bigquery.NewClient(ctx, emulator.Project, option.WithEndpoint(b.wire.URL), option.WithoutAuthentication())
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	if err := c.EnableStorageReadClient(ctx, option.WithEndpoint(endpoint), option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials()))); err != nil {
		return 0, 0, err
	}
	ref := strings.SplitN(table.Name, ".", 3)
	t := c.DatasetInProject(ref[0], ref[1]).Table(ref[2])

	start := time.Now()
	it := t.Read(ctx)
	ai, err := it.ArrowIterator()
	if err != nil {
		return 0, 0, fmt.Errorf("Storage Read API: %w", err)
	}
	rdr, err := ipc.NewReader(bigquery.NewArrowIteratorReader(ai))
	if err != nil {
		return 0, 0, fmt.Errorf("Storage Read API: %w", err)
	}
	got := 0
	for rdr.Next() {
		got += int(rdr.Record().NumRows())
	}
	err = rdr.Err()
	rdr.Release()
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, fmt.Errorf("Storage Read API: %w", err)
	}
	arrowOnly = time.Since(start)
	if got != n {
		return 0, 0, fmt.Errorf("Storage Read API: %d rows in Arrow, want %d", got, n)
	}

	start = time.Now()
	it = t.Read(ctx)
	got = 0
	for {
		var row []bigquery.Value
		err := it.Next(&row)
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return 0, 0, fmt.Errorf("Storage Read API rows: %w", err)
		}
		got++
	}
	if got != n {
		return 0, 0, fmt.Errorf("Storage Read API: %d rows, want %d", got, n)
	}
	return arrowOnly, time.Since(start), nil
}

// cpuTime is the user and system CPU time a process has used.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command (in parentheses): state is 3rd, utime
	// and stime the 14th and 15th, in clock ticks (100 a second).
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// page reads every row of jobID with getQueryResults, pageRows a page.
func (b *bench) page(ctx context.Context, svc *bq.Service, jobID string, n int) (time.Duration, int, error) {
	start := time.Now()
	rows, pages, token := 0, 0, ""
	for {
		call := svc.Jobs.GetQueryResults(emulator.Project, jobID).MaxResults(int64(b.o.pageRows)).FormatOptionsUseInt64Timestamp(true).Context(ctx)
		if token != "" {
			call = call.PageToken(token)
		}
		res, err := call.Do()
		if err != nil {
			return 0, 0, fmt.Errorf("getQueryResults: %w", err)
		}
		rows += len(res.Rows)
		pages++
		if token = res.PageToken; token == "" {
			break
		}
	}
	if rows != n {
		return 0, 0, fmt.Errorf("getQueryResults paged %d rows, want %d", rows, n)
	}
	return time.Since(start), pages, nil
}

// toolPages reads every row of jobID through the get_query_results tool
// at its largest maxRows, as an agent would page, in a fresh server
// started with flags (stdio without an allowlist reads jobs it did not
// start), so that the process's peak RSS is that of the paging.
func (b *bench) toolPages(ctx context.Context, flags []string, jobID string, n int) (time.Duration, int, int64, time.Duration, error) {
	p, err := b.start(ctx, flags...)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer p.close()
	cpu0 := cpuTime(p.pid())
	start := time.Now()
	var next float64
	rows, calls := 0, 0
	for {
		out, err := p.call(ctx, "get_query_results", map[string]any{"jobId": jobID, "startIndex": next, "maxRows": 10000})
		if err != nil {
			return 0, 0, 0, 0, err
		}
		calls++
		got, _ := out["rows"].([]any)
		rows += len(got)
		next, _ = out["nextStartIndex"].(float64)
		if next == 0 || len(got) == 0 {
			break
		}
	}
	d := time.Since(start)
	cpu := cpuTime(p.pid()) - cpu0
	_, peak, err := memory(p.pid())
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if rows != n {
		return 0, 0, 0, 0, fmt.Errorf("get_query_results returned %d rows, want %d", rows, n)
	}
	return d, calls, peak, cpu, nil
}

// reset sets the process's VmHWM back to its current RSS (clear_refs 5).
func reset(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}

func with(base map[string]any, kv ...any) map[string]any {
	m := map[string]any{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func rowsPerSec(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func slicesMax(s []int64) int64 {
	var m int64
	for _, v := range s {
		m = max(m, v)
	}
	return m
}
