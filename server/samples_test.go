package server

import (
	"encoding/json"
	"math/big"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/rows"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

// toolSamples are sample answers for docs/tools.md, built from the real
// output types (rows through the real encoder), so a renamed field or a
// changed row shape shows up in the generated reference.
func toolSamples() map[string]any {
	rowSchema := bigquery.Schema{
		{Name: "order_id", Type: bigquery.IntegerFieldType},
		{Name: "total", Type: bigquery.NumericFieldType},
		{Name: "status", Type: bigquery.StringFieldType},
	}
	encode := func(f rows.Format, vals ...[]bigquery.Value) []json.RawMessage {
		out := []json.RawMessage{}
		for _, v := range vals {
			enc, err := rows.Encode(rowSchema, v, f)
			if err != nil {
				panic(err)
			}
			out = append(out, enc)
		}
		return out
	}
	r1 := []bigquery.Value{int64(1001), big.NewRat(5997, 100), "shipped"}
	r2 := []bigquery.Value{int64(1002), big.NewRat(21, 2), "delivered"}
	cols := bqtype.Columns(rowSchema)
	// 10 MiB billed at the table's US price: $0.0000596, to the hundredth
	// of a cent.
	samplePrice := cost.Prices{PricePerTiB: cost.DefaultPerTiBUSD}.For("US")
	sampleCost, _ := samplePrice.FromBytes(10485760)
	return map[string]any{
		"get_table_schema": &schema.TableSchema{Table: "demo-project.shop.wide", Type: "TABLE",
			Columns:     []bqtype.Column{{Name: "order_id", Type: "INT64", Mode: "REQUIRED"}, {Name: "total", Type: "NUMERIC"}},
			PrimaryKey:  []string{"order_id"},
			ForeignKeys: []schema.ForeignKey{{Columns: []string{"customer_id"}, References: "demo-project.shop.customers", ReferencedColumns: []string{"id"}}},
			NumRows:     5, NumBytes: 1024, Truncated: true, OmittedColumns: 98,
			Hint: "Cut to fit 6000 bytes: column descriptions left out to fit (includeDescriptions with fewer columns to read them whole); 2 of 100 columns shown (ask for the others by name or pattern in columns, e.g. [\"status\"])."},
		"search_columns": &schema.SearchOutput{Project: "demo-project", Method: "metadata", DatasetsScanned: 2, TablesScanned: 4,
			Matches: []schema.ColumnMatch{{Table: "shop.customers", Column: "customer_id", Type: "INT64"}, {Table: "shop.orders", Column: "customer_id", Type: "INT64", Description: "Who ordered"}}},
		"preview_table": &schema.PreviewOutput{Table: "demo-project.shop.orders", Schema: cols, Rows: encode(rows.FormatCompact, r1, r2),
			RowCount: 2, TotalRows: 5, Truncated: true, TruncatedBy: "maxRows", NextStartIndex: 2},
		"execute_sql": &query.ExecuteOutput{JobID: "bqmcp_3f2a", Location: "US", StatementType: "SELECT", Schema: cols,
			Rows: encode(rows.FormatCompact, r1, r2), Format: rows.FormatCompact, RowCount: 2, TotalRows: 2, JobComplete: true, State: "DONE",
			BytesProcessed: 10485760, BytesBilled: 10485760, DurationMs: 412, SlotMs: 1370, CostUSD: &sampleCost, Price: &samplePrice},
	}
}
