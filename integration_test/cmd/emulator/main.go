// Command emulator runs the BigQuery emulator with the sample data until
// interrupted, and prints its endpoint, so any MCP client can be pointed at
// bigquery-mcp --endpoint <url> --project demo-project.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	emu, err := emulator.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "emulator:", err)
		os.Exit(1)
	}
	defer emu.Close()
	fmt.Printf("BigQuery emulator with the sample data at %s (project %s)\n", emu.URL, emulator.Project)
	fmt.Printf("Try: bigquery-mcp --endpoint %s --project %s\n", emu.URL, emulator.Project)
	<-ctx.Done()
}
