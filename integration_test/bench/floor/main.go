// Command floor is the lightest MCP server the design card allows: it links
// only the card's packages (the BigQuery client, go-sdk, OpenTelemetry,
// oauth2 and go-cache) and serves one tool, execute_sql, over stdio. `make
// bench` starts it beside bigquery-mcp, built with the same flags, and
// compares their start to the first tools/list answer, their peak memory at
// start and their stripped size: what the server costs beyond what any
// server of this design must pay.
//
// It does what the server does before its first answer: reads its flags,
// finds credentials (oauth2's Application Default Credentials, or none with
// --endpoint), builds the BigQuery client, a tracer and a result cache,
// registers its tool and serves the session until stdin closes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/patrickmn/go-cache"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
)

func main() {
	stdio := flag.NewFlagSet("stdio", flag.ExitOnError)
	project := stdio.String("project", os.Getenv("BIGQUERY_PROJECT"), "Google Cloud project to run queries in")
	endpoint := stdio.String("endpoint", "", "BigQuery API endpoint (an emulator: no credentials)")
	if len(os.Args) < 2 || os.Args[1] != "stdio" {
		fmt.Fprintln(os.Stderr, "usage: floor stdio --project P [--endpoint URL]")
		os.Exit(2)
	}
	stdio.Parse(os.Args[2:])
	if err := serve(context.Background(), *project, *endpoint); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func serve(ctx context.Context, project, endpoint string) error {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	opts := []option.ClientOption{option.WithEndpoint(endpoint), option.WithoutAuthentication()}
	if endpoint == "" {
		ts, err := google.DefaultTokenSource(ctx, bigquery.Scope)
		if err != nil {
			return fmt.Errorf("credentials: %w", err)
		}
		opts = []option.ClientOption{option.WithTokenSource(ts)}
	}
	bq, err := bigquery.NewClient(ctx, project, opts...)
	if err != nil {
		return fmt.Errorf("bigquery client: %w", err)
	}
	defer bq.Close()

	t := &tool{bq: bq, results: cache.New(time.Minute, 5*time.Minute)}
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "execute_sql", Description: "Run a GoogleSQL query and return its rows."}, t.executeSQL)
	log.Info("starting", "transport", "stdio", "project", project)
	err = s.Run(ctx, &mcp.StdioTransport{})
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

type tool struct {
	bq      *bigquery.Client
	results *cache.Cache
}

type executeIn struct {
	SQL string `json:"sql" jsonschema:"the GoogleSQL query"`
}

type executeOut struct {
	Rows [][]bigquery.Value `json:"rows"`
}

// executeSQL runs the query and returns its rows; a repeated text within a
// minute is answered from the cache.
func (t *tool) executeSQL(ctx context.Context, _ *mcp.CallToolRequest, in executeIn) (*mcp.CallToolResult, executeOut, error) {
	ctx, span := otel.Tracer("floor").Start(ctx, "execute_sql")
	defer span.End()
	if rows, ok := t.results.Get(in.SQL); ok {
		span.SetAttributes(attribute.Bool("cached", true))
		return nil, executeOut{Rows: rows.([][]bigquery.Value)}, nil
	}
	it, err := t.bq.Query(in.SQL).Read(ctx)
	if err != nil {
		return nil, executeOut{}, err
	}
	out := executeOut{Rows: [][]bigquery.Value{}}
	for {
		var row []bigquery.Value
		err := it.Next(&row)
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, executeOut{}, err
		}
		out.Rows = append(out.Rows, row)
	}
	t.results.SetDefault(in.SQL, out.Rows)
	return nil, out, nil
}
