package server

// Table schemas as MCP resources, so a user can attach one to a prompt from
// an IDE, and completion of the template's dataset and table names.

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

// schemaTemplate names a table's schema resource.
const schemaTemplate = "bigquery://{project}/{dataset}/{table}"

// maxCompletions is how many names one completion answer lists (the MCP
// limit is 100).
const maxCompletions = 100

// addSchemaResources registers the table schema resource template. Its
// contents are get_table_schema's default answer: cut to the same budget,
// and refused for a dataset outside the allowlist the same way.
func addSchemaResources(s *mcp.Server, svc *schema.Service) {
	if svc == nil {
		return
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "table-schema",
		Title:       "BigQuery table schema",
		Description: "A table's columns, types, partitioning and clustering (as get_table_schema returns them).",
		MIMEType:    "application/json",
		URITemplate: schemaTemplate,
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		ctx = withCaller(ctx, req)
		uri := req.Params.URI
		ref, ok := strings.CutPrefix(uri, "bigquery://")
		parts := strings.Split(ref, "/")
		if !ok || len(parts) != 3 {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		out, err := svc.GetTableSchema(ctx, schema.GetTableSchemaInput{Table: strings.Join(parts, ".")})
		if err != nil {
			e := bqerr.From(err)
			if e.Code == bqerr.NotFound || e.Code == bqerr.InvalidArgument {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: e.Message, Data: e.JSON()}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the schema could not be encoded"}
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
	})
}

// completeNames completes the schema template's dataset and table
// arguments from the (cached) listings, which hold only what the dataset
// allowlist allows; project completes to the server's default when the
// allowlist allows any of its datasets. Other references complete to
// nothing.
func completeNames(svc *schema.Service) func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	if svc == nil {
		return nil
	}
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		ctx = withCaller(ctx, req)
		p := req.Params
		res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
		if p.Ref == nil || p.Ref.Type != "ref/resource" || p.Ref.URI != schemaTemplate {
			return res, nil
		}
		var args map[string]string
		if p.Context != nil {
			args = p.Context.Arguments
		}
		prefix := strings.ToLower(p.Argument.Value)
		var names []string
		more := false
		switch p.Argument.Name {
		case "project":
			if pr := svc.DefaultProject(); pr != "" && svc.Datasets().AllowsProject(pr) {
				names = []string{pr}
			}
		case "dataset":
			l, err := svc.ListDatasets(ctx, schema.ListDatasetsInput{Project: args["project"], Filter: p.Argument.Value, MaxResults: maxCompletions})
			if err != nil {
				return res, nil // completion is a convenience: no names, no error
			}
			for _, d := range l.Datasets {
				names = append(names, d.ID)
			}
			more = l.NextPageToken != ""
		case "table":
			if args["dataset"] == "" {
				return res, nil
			}
			l, err := svc.ListTables(ctx, schema.ListTablesInput{Project: args["project"], Dataset: args["dataset"], Filter: p.Argument.Value, MaxResults: maxCompletions})
			if err != nil {
				return res, nil
			}
			for _, t := range l.Tables {
				names = append(names, t.ID)
			}
			more = l.NextPageToken != ""
		}
		// Prefixes first: the user is typing the start of a name.
		for _, n := range names {
			if strings.HasPrefix(strings.ToLower(n), prefix) {
				res.Completion.Values = append(res.Completion.Values, n)
			}
		}
		for _, n := range names {
			if !strings.HasPrefix(strings.ToLower(n), prefix) {
				res.Completion.Values = append(res.Completion.Values, n)
			}
		}
		res.Completion.HasMore = more
		return res, nil
	}
}
