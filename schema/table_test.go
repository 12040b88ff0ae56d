package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// hundredColumns is a 100-column table as BigQuery stores it: names like a
// real warehouse's, six RECORDs of four fields each (three REPEATED), some REQUIRED and
// REPEATED columns (mode written out only on some NULLABLE ones, as
// BigQuery answers), and, with desc, a 150-byte description on every
// column and field.
func hundredColumns(desc bool) []*bq.TableFieldSchema {
	subjects := []string{"customer", "order", "shipping", "billing", "product", "campaign", "session", "device", "payment", "invoice"}
	facts := []string{"id", "name", "created_at", "updated_at", "status", "amount", "country", "code", "count", "score"}
	types := []string{"STRING", "INTEGER", "TIMESTAMP", "NUMERIC", "BOOLEAN", "FLOAT", "DATE"}
	describe := func(f *bq.TableFieldSchema) {
		if desc {
			f.Description = strings.Repeat("What "+f.Name+" holds, in words. ", 8)[:150]
		}
	}
	var fields []*bq.TableFieldSchema
	for i := range 100 {
		f := &bq.TableFieldSchema{Name: subjects[i/10] + "_" + facts[i%10], Type: types[i%len(types)]}
		switch {
		case i%16 == 5:
			f.Type = "RECORD"
			for _, n := range []string{"street", "city", "postal_code", "country_code"} {
				sub := &bq.TableFieldSchema{Name: n, Type: "STRING"}
				describe(sub)
				f.Fields = append(f.Fields, sub)
			}
			if i%32 == 5 {
				f.Mode = "REPEATED"
			}
		case i%7 == 0:
			f.Mode = "REQUIRED"
		case i%11 == 0:
			f.Mode = "REPEATED"
		case i%2 == 0:
			f.Mode = "NULLABLE"
		}
		describe(f)
		fields = append(fields, f)
	}
	return fields
}

// names lists every column and nested field of s, as paths.
func names(cols []*bq.TableFieldSchema, prefix string) []string {
	var out []string
	for _, c := range cols {
		out = append(out, prefix+c.Name)
		out = append(out, names(c.Fields, prefix+c.Name+".")...)
	}
	return out
}

// A 100-column table's schema, read through tables.get and shaped as
// get_table_schema shapes it at the default budget, names every column and
// nested field; without descriptions nothing is cut, and with them only the
// descriptions go (and the answer says so).
func TestHundredColumnSchemaNamesEveryColumn(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("d", "US")
	for _, desc := range []bool{false, true} {
		tab := table(fmt.Sprintf("wide_%v", desc))
		tab.Type, tab.NumRows, tab.NumBytes = "TABLE", 1000, 1<<20
		tab.Schema = &bq.TableSchema{Fields: hundredColumns(desc)}
		addTable(fake, "d", tab)
	}
	s := newTestService(t, fake, serviceOptions{project: "p"})
	for _, desc := range []bool{false, true} {
		got, err := s.GetTableSchema(context.Background(), GetTableSchemaInput{Table: fmt.Sprintf("d.wide_%v", desc)})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(got)
		var shown []string
		var walkNames func([]json.RawMessage, string)
		walkNames = func(cols []json.RawMessage, prefix string) {
			for _, raw := range cols {
				var c struct {
					Name   string            `json:"name"`
					Fields []json.RawMessage `json:"fields"`
				}
				if err := json.Unmarshal(raw, &c); err != nil {
					t.Fatal(err)
				}
				shown = append(shown, prefix+c.Name)
				walkNames(c.Fields, prefix+c.Name+".")
			}
		}
		var answer struct {
			Columns []json.RawMessage `json:"columns"`
		}
		if err := json.Unmarshal(b, &answer); err != nil {
			t.Fatal(err)
		}
		walkNames(answer.Columns, "")
		want := names(hundredColumns(desc), "")
		t.Logf("descriptions=%v: %d bytes, %d of %d columns and fields named, hint %q", desc, len(b), len(shown), len(want), got.Hint)
		if len(b) > MaxSchemaBytes || strings.Join(shown, ",") != strings.Join(want, ",") || got.OmittedColumns != 0 {
			t.Fatalf("descriptions=%v: %d bytes, %d of %d named, %d omitted", desc, len(b), len(shown), len(want), got.OmittedColumns)
		}
		if !desc && (got.Truncated || got.Hint != "") {
			t.Errorf("nothing was cut, yet truncated=%v hint %q", got.Truncated, got.Hint)
		}
		if desc && (!got.Truncated || got.Hint != "Cut to fit 6000 bytes: column descriptions left out to fit (includeDescriptions with fewer columns to read them whole).") {
			t.Errorf("descriptions cut: truncated=%v hint %q", got.Truncated, got.Hint)
		}
	}
}

// Declared keys come with the schema from tables.get: the primary key's
// columns and each foreign key's columns, table and referenced columns;
// none declared, none said; a key to a dataset outside the allowlist is
// left out.
func TestGetTableSchemaKeys(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("shop", "US")
	fake.AddDataset("hr", "US")
	orders := table("orders")
	orders.Schema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{
		{Name: "id", Type: "INTEGER", Mode: "REQUIRED"}, {Name: "customer_id", Type: "INTEGER"}, {Name: "region", Type: "STRING"},
		{Name: "sku", Type: "STRING"}, {Name: "seller_id", Type: "INTEGER"},
	}}
	orders.TableConstraints = &bq.TableConstraints{
		PrimaryKey: &bq.TableConstraintsPrimaryKey{Columns: []string{"id"}},
		ForeignKeys: []*bq.TableConstraintsForeignKeys{
			{Name: "fk_customer", ReferencedTable: &bq.TableConstraintsForeignKeysReferencedTable{ProjectId: "p", DatasetId: "shop", TableId: "customers"},
				ColumnReferences: []*bq.TableConstraintsForeignKeysColumnReferences{
					{ReferencingColumn: "customer_id", ReferencedColumn: "id"}, {ReferencingColumn: "region", ReferencedColumn: "region"}}},
			{ReferencedTable: &bq.TableConstraintsForeignKeysReferencedTable{ProjectId: "other", DatasetId: "catalog", TableId: "products"},
				ColumnReferences: []*bq.TableConstraintsForeignKeysColumnReferences{{ReferencingColumn: "sku", ReferencedColumn: "sku"}}},
			{ReferencedTable: &bq.TableConstraintsForeignKeysReferencedTable{ProjectId: "p", DatasetId: "hr", TableId: "staff"},
				ColumnReferences: []*bq.TableConstraintsForeignKeysColumnReferences{{ReferencingColumn: "seller_id", ReferencedColumn: "staff_id"}}},
		},
	}
	addTable(fake, "shop", orders)
	plain := table("plain")
	plain.Schema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "x", Type: "STRING"}}}
	addTable(fake, "shop", plain)

	s := newTestService(t, fake, serviceOptions{project: "p"})
	ctx := context.Background()
	got, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "shop.orders", Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	const want = `"primaryKey":["id"],"foreignKeys":[` +
		`{"columns":["customer_id","region"],"references":"p.shop.customers","referencedColumns":["id","region"]},` +
		`{"columns":["sku"],"references":"other.catalog.products","referencedColumns":["sku"]},` +
		`{"columns":["seller_id"],"references":"p.hr.staff","referencedColumns":["staff_id"]}]`
	// Keys are the table's, whichever columns were asked for.
	if !strings.Contains(string(b), want) {
		t.Errorf("answer %s\nlacks %s", b, want)
	}
	p, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "shop.plain"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(p); strings.Contains(string(b), "primaryKey") || strings.Contains(string(b), "foreignKeys") {
		t.Errorf("no keys declared, yet %s", b)
	}

	// With --datasets shop only (on the same cache), the key to hr is left
	// out; the cached schema keeps it for a server that allows hr.
	only := newTestService(t, fake, serviceOptions{project: "p", cache: s.cache})
	only.cfg.Datasets = allowlist(t, "shop")
	a, err := only.GetTableSchema(ctx, GetTableSchemaInput{Table: "shop.orders"})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, fk := range a.ForeignKeys {
		refs = append(refs, fk.References)
	}
	if strings.Join(refs, ",") != "p.shop.customers" {
		t.Errorf("with --datasets shop, foreign keys to %v", refs)
	}
	again, _ := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "shop.orders"})
	if len(again.ForeignKeys) != 3 {
		t.Errorf("the allowlist changed the cached keys: %d left", len(again.ForeignKeys))
	}
}
