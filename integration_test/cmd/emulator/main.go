// Command emulator runs the BigQuery emulator with the sample data until
// interrupted, and prints its endpoint, so any MCP client can be pointed at
// bigquery-mcp --endpoint <url> --project demo-project.
//
// -data FILE (repeatable) loads the datasets of another emulator YAML too,
// such as semantic/testdata/shop/data.yaml, the semantic layer's sample shop.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var files dataFiles
	flag.Var(&files, "data", "an emulator YAML whose datasets to load as well (repeatable)")
	flag.Parse()
	var extra [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "emulator:", err)
			os.Exit(1)
		}
		extra = append(extra, b)
	}
	emu, err := emulator.Start(ctx, extra...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "emulator:", err)
		os.Exit(1)
	}
	defer emu.Close()
	fmt.Printf("BigQuery emulator with the sample data at %s (project %s)\n", emu.URL, emulator.Project)
	fmt.Printf("Try: bigquery-mcp --endpoint %s --project %s\n", emu.URL, emulator.Project)
	<-ctx.Done()
}

// dataFiles is the repeatable -data flag.
type dataFiles []string

func (d *dataFiles) String() string { return fmt.Sprint(*d) }

func (d *dataFiles) Set(v string) error {
	*d = append(*d, v)
	return nil
}
