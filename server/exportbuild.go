package server

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/export"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// buildExport makes export_results' service when its toolset is listed
// (nil otherwise: a server that does not export opens no gRPC
// connection). Its client is a second one on the same authenticated,
// guarded HTTP client, with the Storage Read API on where its credentials
// can reach it over gRPC.
func buildExport(ctx context.Context, cfg Config, conn *connection, runner *resilience.Executor, q *query.Service, log *slog.Logger) (*export.Service, *bigquery.Client, error) {
	if !slices.Contains(cfg.Toolsets, ToolsetExport) {
		return nil, nil, nil
	}
	client, err := bigquery.NewClient(ctx, conn.project, conn.opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the export client: %w", err)
	}
	client.Location = cfg.Location
	if sopts, ok := storageOptions(cfg); ok {
		if err := client.EnableStorageReadClient(ctx, sopts...); err != nil {
			client.Close()
			return nil, nil, fmt.Errorf("connecting to the BigQuery Storage Read API: %w", err)
		}
	} else {
		log.Info("export_results reads results through tabledata.list: the Storage Read API is not reachable with these credentials or this endpoint")
	}
	svc := export.NewService(export.Config{
		Settings: cfg.Export,
		Queries:  q, Reader: export.ClientReader{Client: client, StallTimeout: cfg.Export.StallTimeout}, Copier: export.ClientCopier{Client: client},
		Extractor: export.ClientExtractor{Client: client},
		Executor:  runner, Project: cfg.Project,
	})
	return svc, client, nil
}

// storageOptions are the gRPC options of the Storage Read client. It
// authenticates on its own (gRPC does not use the HTTP client), which this
// server can do for Application Default Credentials and a credentials file;
// impersonation and each user's own token (oauth) read through
// tabledata.list instead, as does an emulator without --storage-endpoint.
func storageOptions(cfg Config) ([]option.ClientOption, bool) {
	switch {
	case cfg.StorageEndpoint != "":
		return []option.ClientOption{option.WithEndpoint(cfg.StorageEndpoint), option.WithoutAuthentication(),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials()))}, true
	case cfg.Endpoint != "" || cfg.Auth != auth.ADC || cfg.ImpersonateServiceAccount != "":
		return nil, false
	case cfg.CredentialsFile != "":
		return []option.ClientOption{option.WithCredentialsFile(cfg.CredentialsFile)}, true //nolint:staticcheck // the file the HTTP client uses too
	}
	return nil, true
}

// checkExport reports export settings that cannot work: a --export-gcs
// that is not gs://bucket[/prefix], and a default destination of gcs
// without one.
func checkExport(c export.Settings) []string {
	var problems []string
	if c.GCS != "" {
		if _, err := export.ParseGCS(c.GCS); err != nil {
			problems = append(problems, err.Error())
		}
	}
	switch c.Destination {
	case "", "file", "table":
	case "gcs":
		if c.GCS == "" {
			problems = append(problems, "export destination gcs needs export-gcs")
		}
	default:
		problems = append(problems, fmt.Sprintf("export destination %q must be file, table or gcs", c.Destination))
	}
	return problems
}
