package server

import (
	"context"
	"encoding/json"
	"path"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/export"
)

// exportTool is export_results. Its result leads with a resource_link to
// the file or table, so a host can open it without the rows ever passing
// through the agent's context; the counts follow as JSON, as every tool's.
func exportTool(svc Services) toolSpec {
	spec := newTool(&mcp.Tool{
		Name:        "export_results",
		Description: `Write a SELECT's (or finished jobId's) whole result to a file (jsonl, csv, parquet), a table or Cloud Storage (gcs). Returns links and counts, not rows. Checked as execute_sql.`,
		Annotations: &mcp.ToolAnnotations{
			Title:        "Export results",
			ReadOnlyHint: false,
			// overwrite: true replaces a file or table; gcs objects of the
			// same name are replaced.
			DestructiveHint: ptr(true),
			IdempotentHint:  false,
			OpenWorldHint:   ptr(false),
		},
	}, func(ctx context.Context, in export.Input) (*export.Output, error) {
		return svc.Export.Export(ctx, in)
	})
	typed := spec.handler
	spec.handler = func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
		out, err := typed(ctx, req)
		if o, ok := out.(*export.Output); ok && err == nil {
			return exportResult(o)
		}
		return out, err
	}
	return spec
}

// exportResult is the result of an export: the links (the file, the
// table, or each Cloud Storage object listed), then the JSON.
func exportResult(o *export.Output) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, bqerr.New(bqerr.Internal, "the result could not be encoded").WithCause(err)
	}
	mime := "application/json"
	switch o.Format {
	case "jsonl":
		mime = "application/jsonl"
	case "csv":
		mime = "text/csv"
	case "parquet":
		mime = "application/vnd.apache.parquet"
	}
	var content []mcp.Content
	uris := []string{o.URI}
	if len(o.Objects) > 0 {
		uris = o.Objects
	}
	for _, uri := range uris {
		link := &mcp.ResourceLink{URI: uri, Name: path.Base(uri), MIMEType: mime}
		if o.Destination == "file" {
			size := o.Bytes
			link.Size = &size
		}
		content = append(content, link)
	}
	return &mcp.CallToolResult{
		Content:           append(content, &mcp.TextContent{Text: string(b)}),
		StructuredContent: json.RawMessage(b),
	}, nil
}
