// Command bench measures the server against the raw BigQuery Go client on
// the emulator, side by side in one run (`make bench`): query latency with
// the read-only verdict cold and warm, requests at the wire per tool call,
// cached schema reads, start-up time and memory, a large read's peak memory,
// and the query latency again behind a proxy that adds a fixed delay to
// every BigQuery request. docs/performance.md records a run.
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
	"os/exec"
	"path/filepath"
	"runtime"
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
}

func main() {
	var o options
	flag.StringVar(&o.root, "root", "..", "the main module's directory (the server is built from it)")
	flag.IntVar(&o.calls, "calls", 30, "timed calls per side and comparison")
	// 1M rows take the emulator a minute to load and longer than the
	// server's default query timeout to scan; real BigQuery does neither.
	flag.IntVar(&o.rows, "rows", 200000, "rows in the large table of P4 (the last step)")
	flag.DurationVar(&o.delay, "delay", 50*time.Millisecond, "delay the slow proxy adds to every BigQuery request")
	flag.IntVar(&o.starts, "starts", 5, "server starts timed for P3")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// bench holds what every measurement shares.
type bench struct {
	o    options
	bin  string
	emu  *emulator.Emulator
	wire *wire
	raw  *bigquery.Client
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
	build := exec.Command("go", "build", "-o", b.bin, "./cmd/bigquery-mcp")
	build.Dir = o.root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building server: %w\n%s", err, out)
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
	steps := []struct {
		title string
		fn    func(context.Context, *serverProc) error
	}{
		{"P1: execute_sql over stdio vs Query.Read (loopback emulator)", b.p1},
		{"Requests at the wire per tool call", b.requestsPerCall},
		{"P2: cached get_table_schema over stdio vs tables.get", b.p2},
		{"P3: start to first tools/list; memory", b.p3},
		{fmt.Sprintf("P1 behind a proxy adding %s to every BigQuery request", o.delay), b.p1Slow},
		{"P4: a large table read with the default row cap", b.p4},
	}
	for _, s := range steps {
		fmt.Printf("== %s\n", s.title)
		if err := s.fn(ctx, srv); err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
		fmt.Println()
	}
	return nil
}
