package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/semantic"
)

// Handler is a tool call after its arguments were decoded: it returns the
// structured result or an error of any kind.
type Handler func(ctx context.Context, req *mcp.CallToolRequest) (any, error)

// Middleware wraps every tool call, the way net/http middleware wraps a
// Handler. tool is the tool's name. Middleware sees errors before they are
// turned into results, so it can log and count them by code.
type Middleware func(tool string, next Handler) Handler

// toolSpec is a registered tool: its MCP definition and how to call it.
// out describes the result for docs/tools.md only: tools/list carries no
// outputSchema (see newTool), so it is inferred only when asked for.
type toolSpec struct {
	tool *mcp.Tool
	// in infers the input schema, in its portable form; describe puts it in
	// tool. Only the listed tools need one, so a start that lists the
	// default toolsets infers none of the others'.
	in      func() *jsonschema.Schema
	out     func() *jsonschema.Schema
	handler Handler
}

// describe fills the tool's input schema, once.
func (t toolSpec) describe() {
	if t.tool.InputSchema == nil {
		t.tool.InputSchema = t.in()
	}
}

// freeze replaces the tool's input schema by its JSON, for a server that
// lists it. go-sdk marshals a schema when the tool is added (to check it)
// and again on every tools/list; its JSON is marshalled once, here, and
// copied after. Marshalling the 11 default tools' schemas was the largest
// part of building the MCP server.
func (t toolSpec) freeze() {
	raw, err := json.Marshal(t.tool.InputSchema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.tool.Name, err))
	}
	t.tool.InputSchema = json.RawMessage(raw)
}

// newTool builds a tool from a typed function. Input and output schemas are
// inferred from In and Out, so the contract lives in one place: the Go types
// and their jsonschema tags.
//
// The output schema is documented (docs/tools.md) but not advertised: it was
// 55% of tools/list, every agent pays for it on every session, the hosts that
// feed tools to models ignore it, and results already carry their JSON in the
// text block and structuredContent. The input schema is advertised in its
// portable form (portable).
//
// Start-up does only what tools/list needs: inferring and resolving every
// schema up front was three quarters of building the MCP server, paid on
// every start. The input schema is inferred when the tool is listed
// (describe), so tools the toolsets leave out cost nothing; the validator
// is resolved at the tool's first call
// (TestEveryToolValidatesItsArguments proves each one resolves) and the
// output schema when the docs ask.
func newTool[In, Out any](t *mcp.Tool, fn func(context.Context, In) (Out, error)) toolSpec {
	inferred := sync.OnceValue(func() *jsonschema.Schema {
		in, err := jsonschema.For[In](schemaOptions)
		if err != nil {
			panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
		}
		return in
	})
	resolved := sync.OnceValues(func() (*jsonschema.Resolved, error) { return inferred().Resolve(nil) })
	h := func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
		schema, err := resolved()
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema does not resolve: %w", t.Name, err)
		}
		input, err := decodeArgs[In](req.Params.Arguments, schema)
		if err != nil {
			return nil, err
		}
		return fn(ctx, input)
	}
	return toolSpec{tool: t, in: func() *jsonschema.Schema { return portable(inferred().CloneSchemas()) }, out: outputSchema[Out](t.Name), handler: h}
}

// outputSchema infers the schema of a tool's result on demand. Results are
// returned through pointers, but the schema must describe the object
// itself: MCP requires an output schema of type "object".
func outputSchema[Out any](tool string) func() *jsonschema.Schema {
	return func() *jsonschema.Schema {
		outType := reflect.TypeFor[Out]()
		if outType.Kind() == reflect.Pointer {
			outType = outType.Elem()
		}
		out, err := jsonschema.ForType(outType, schemaOptions)
		if err != nil {
			panic(fmt.Sprintf("tool %s: output schema: %v", tool, err))
		}
		return out
	}
}

// schemaOptions makes raw JSON fields (result rows) plain objects in the
// schema instead of byte arrays.
var schemaOptions = &jsonschema.ForOptions{
	TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Types: []string{"array", "object"}, Description: "A result row: an array of values in column order (format compact) or an object of column name → value (format objects)."},
		reflect.TypeFor[any]():             anyValue,
		// A where filter or a list of them (query_metrics).
		reflect.TypeFor[semantic.Filters](): {AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}}}},
		// Column is recursive (STRUCT fields are columns), which schema
		// inference cannot express; nested fields are described, not
		// re-declared.
		reflect.TypeFor[bqtype.Column](): {
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"name":             {Type: "string"},
				"type":             {Type: "string", Description: "GoogleSQL type: STRING, INT64, FLOAT64, NUMERIC, BIGNUMERIC, BOOL, BYTES, DATE, DATETIME, TIME, TIMESTAMP, GEOGRAPHY, JSON, INTERVAL, RANGE or STRUCT."},
				"mode":             {Type: "string", Description: "REQUIRED or REPEATED (an ARRAY of type); omitted means NULLABLE, BigQuery's default."},
				"description":      {Type: "string"},
				"rangeElementType": {Type: "string"},
				"maxLength":        {Type: "integer"},
				"precision":        {Type: "integer"},
				"scale":            {Type: "integer"},
				"defaultValue":     {Type: "string"},
				"policyTags":       {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
				"fields":           {Type: "array", Items: &jsonschema.Schema{Type: "object"}, Description: "Sub-columns of a STRUCT, each shaped like this column."},
			},
			Required: []string{"name", "type"},
		},
	},
}

// anyValue is a JSON value of any kind, spelled with a type on every branch
// so clients that need typed schemas (and Inspector --strict) accept it.
var anyValue = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
	{Type: "string"}, {Type: "number"}, {Type: "boolean"}, {Type: "array"}, {Type: "object"}, {Type: "null"},
}}

// portable rewrites an inferred schema into the dialect every client reads:
// a nullable union (["null","array"], how Go slices are inferred) becomes
// its one real type. Omitting a field is how an agent says "none".
func portable(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	// Validation happens on the server (decodeArgs); clients need no
	// additionalProperties to call correctly.
	s.AdditionalProperties = nil
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		portable(p)
	}
	portable(s.Items)
	for _, b := range s.AnyOf {
		portable(b)
	}
	return s
}

// decodeArgs validates arguments against the input schema and decodes them.
// Numbers decode as json.Number so INT64 and NUMERIC parameter values stay
// exact.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var in In
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return in, bqerr.Invalid("arguments are not valid JSON", "Send the arguments as a JSON object matching the tool's input schema.").WithCause(err)
	}
	if err := schema.Validate(generic); err != nil {
		return in, bqerr.Invalid("invalid arguments: "+bqerr.Truncate(bqerr.Redact(err.Error()), 500),
			"Fix the arguments to match the tool's input schema (see tools/list) and call again.").WithCause(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return in, bqerr.Invalid("invalid arguments: "+bqerr.Truncate(bqerr.Redact(err.Error()), 500),
			"Fix the arguments to match the tool's input schema (see tools/list) and call again.").WithCause(err)
	}
	return in, nil
}

// mcpHandler turns a Handler into the SDK's low-level tool handler. This is
// the one place where errors become results: every failure, whatever its
// origin, reaches the agent as an isError result carrying the structured
// error as JSON.
func mcpHandler(h Handler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, err := h(ctx, req)
		if err != nil {
			e := bqerr.From(err)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(e.JSON())}}}, nil
		}
		if r, ok := out.(*mcp.CallToolResult); ok {
			// Already a result: a question for the user (Confirm).
			return r, nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			e := bqerr.New(bqerr.Internal, "the result could not be encoded").WithCause(err)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(e.JSON())}}}, nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
			StructuredContent: json.RawMessage(b),
		}, nil
	}
}

// chain applies middleware so that the first listed runs outermost.
func chain(tool string, h Handler, mw []Middleware) Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](tool, h)
	}
	return h
}
