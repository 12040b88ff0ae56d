// Command bench measures the server against the raw BigQuery Go client on
// the emulator, side by side in one run (`make bench`): query latency with
// the read-only verdict cold and warm, requests at the wire per tool call,
// cached schema reads, start-up time and memory, a large read's peak memory,
// the query latency again behind a proxy that adds a fixed delay to every
// BigQuery request, and export_results (Parquet, CSV) against paging the
// same result with getQueryResults, and what cost advice adds to a dry run.
// docs/performance.md records a run.
//
// The emulator slows down as jobs pile up, so the two sides of every
// comparison are interleaved call by call; ratios, not absolute times, are
// the figures to read.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
)

type options struct {
	root   string
	calls  int
	rows   int
	delay  time.Duration
	starts int
	// steps names the steps to run (p1, wire, p2, p3, lighter, p1slow, p4,
	// p5, advice);
	// empty: all.
	steps map[string]bool
	// P5: the export table's row counts, rounds per count, the paging
	// baseline's page size, and the largest count also paged through the
	// server's get_query_results tool.
	exportRows   []int
	exportRounds int
	pageRows     int
	toolPageMax  int
	batchRows    int
	perf         string
	// serverEnv is added to every server process's environment.
	serverEnv []string
	// buildFlags are `make build`'s go build flags (without -ldflags),
	// for the server and the floor.
	buildFlags string
	// floorStarts is how many times the lighter step starts each side.
	floorStarts int
	// baseline is another server binary the lighter step also starts, and
	// P1 calls beside the server in every round.
	baseline string
}

func main() {
	var o options
	flag.StringVar(&o.root, "root", "..", "the main module's directory (the server is built from it)")
	flag.IntVar(&o.calls, "calls", 30, "timed calls per side and comparison")
	// 1M rows take the emulator a minute to load and longer than the
	// server's default query timeout to scan; real BigQuery does neither.
	flag.IntVar(&o.rows, "rows", 200000, "rows in the large table of P4")
	flag.DurationVar(&o.delay, "delay", 50*time.Millisecond, "delay the slow proxy adds to every BigQuery request")
	flag.IntVar(&o.starts, "starts", 5, "server starts timed for P3")
	steps := flag.String("steps", "", "comma-separated steps to run: p1, wire, p2, p3, lighter, p1slow, p4, p5, advice (default all)")
	exportRows := flag.String("export-rows", "100000,1000000", "P5: row counts of the 10-column table exported, comma-separated")
	flag.IntVar(&o.exportRounds, "export-rounds", 2, "P5: timed rounds per row count (each: Parquet, CSV, getQueryResults paging)")
	flag.IntVar(&o.pageRows, "page-rows", 10000, "P5: maxResults of each getQueryResults page of the paging baseline")
	flag.IntVar(&o.toolPageMax, "tool-page-max", 100000, "P5: also page through the server's get_query_results tool for row counts up to this (0: never)")
	flag.IntVar(&o.batchRows, "batch-rows", 10000, "P5: rows per Arrow record batch of the Storage Read API (the emulator sends a stream as one batch; its front cuts it)")
	flag.StringVar(&o.perf, "perf", "", "P5: a folder to write `perf record -g` profiles of the server's first Parquet and CSV export of each row count in")
	flag.StringVar(&o.buildFlags, "build-flags", "-trimpath -buildvcs=false", "go build flags for the server and the floor (make bench passes the Makefile's BUILD_FLAGS); both are built stripped, without cgo")
	flag.IntVar(&o.floorStarts, "floor-starts", 21, "lighter: interleaved starts of the server and of the floor")
	flag.StringVar(&o.baseline, "baseline", "", "lighter and P1: another build of the server (a path) started in the same rounds (P1: called in every round beside the server), to measure a change side by side")
	serverEnv := flag.String("server-env", "", "comma-separated KEY=VALUE added to the server processes' environment (e.g. GODEBUG=gctrace=1)")
	flag.Parse()
	if *serverEnv != "" {
		o.serverEnv = strings.Split(*serverEnv, ",")
	}
	if *steps != "" {
		o.steps = map[string]bool{}
		for _, s := range strings.Split(*steps, ",") {
			o.steps[strings.ToLower(strings.TrimSpace(s))] = true
		}
	}
	for _, s := range strings.Split(*exportRows, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "bench: -export-rows: %q is not a row count\n", s)
			os.Exit(2)
		}
		o.exportRows = append(o.exportRows, n)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// bench holds what every measurement shares.
type bench struct {
	o   options
	bin string
	// floor is the floor program's binary (bench/floor), built only for
	// the lighter step.
	floor string
	emu   *emulator.Emulator
	wire  *wire
	raw   *bigquery.Client
	// base is the -baseline binary, running for P1; nil without one.
	base *serverProc
	// distinct numbers the SQL texts of cold-verdict calls, so that no
	// text repeats across rounds.
	distinct int
}

func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "bqmcp-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b := &bench{o: o, bin: filepath.Join(dir, "bigquery-mcp")}
	// Stripped, as released, unless perf needs the symbols.
	if err := goBuild(o.root, b.bin, "./cmd/bigquery-mcp", o.buildFlags, o.perf == ""); err != nil {
		return fmt.Errorf("building server: %w", err)
	}
	if o.steps == nil || o.steps["lighter"] {
		if b.floor, err = b.buildFloor(dir); err != nil {
			return err
		}
	}
	if b.emu, err = emulator.Start(ctx); err != nil {
		return fmt.Errorf("starting emulator: %w", err)
	}
	defer b.emu.Close()
	if b.wire, err = newWire(b.emu.URL); err != nil {
		return err
	}
	defer b.wire.close()
	b.raw, err = bigquery.NewClient(ctx, emulator.Project, option.WithEndpoint(b.wire.URL), option.WithoutAuthentication())
	if err != nil {
		return fmt.Errorf("raw client: %w", err)
	}
	defer b.raw.Close()

	fmt.Printf("machine: %s/%s, %d CPUs, %s; %d calls per side, interleaved\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), o.calls)
	srv, err := b.start(ctx)
	if err != nil {
		return err
	}
	defer srv.close()
	if o.baseline != "" && (o.steps == nil || o.steps["p1"] || o.steps["p1slow"]) {
		if b.base, err = b.startBinary(ctx, o.baseline); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		defer b.base.close()
	}
	steps := []struct {
		key, title string
		fn         func(context.Context, *serverProc) error
	}{
		{"p1", "P1: execute_sql over stdio vs Query.Read (loopback emulator)", b.p1},
		{"wire", "Requests at the wire per tool call", b.requestsPerCall},
		{"p2", "P2: cached get_table_schema over stdio vs tables.get", b.p2},
		{"p3", "P3: start to first tools/list; memory", b.p3},
		{"lighter", "Lighter: the server beside the floor (bench/floor: only the design card's packages, one tool)", b.lighter},
		{"p1slow", fmt.Sprintf("P1 behind a proxy adding %s to every BigQuery request", o.delay), b.p1Slow},
		{"p4", "P4: a large table read with the default row cap", b.p4},
		{"p5", "P5: export_results (Parquet, CSV) vs paging the same result with getQueryResults", b.p5},
		{"advice", "Cost advice: what it adds to dry_run_sql, beside a plain dry run", b.advice},
	}
	for _, s := range steps {
		if o.steps != nil && !o.steps[s.key] {
			continue
		}
		fmt.Printf("== %s\n", s.title)
		if err := s.fn(ctx, srv); err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
		fmt.Println()
	}
	return nil
}
