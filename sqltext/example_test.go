package sqltext_test

import (
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// Parse lexes a text once; every check then reads the same Text. Each
// statement names its kind and the objects it reads or writes, with their
// names decoded as BigQuery resolves them.
func ExampleParse() {
	t := sqltext.Parse("WITH recent AS (SELECT * FROM `my-project.sales.orders` WHERE day > '2026-01-01')\n" +
		"SELECT c.name, r.total FROM recent r JOIN sales.customers c USING (customer_id);\n" +
		"INSERT INTO sales.audit (note) VALUES ('read')")
	for _, st := range t.Statements {
		fmt.Println(st.Kind)
		for _, o := range st.Objects {
			fmt.Printf("  %s %v write=%v\n", o.Kind, o.Path, o.Write)
		}
	}
	// Output:
	// SELECT
	//   table [my-project sales orders] write=false
	//   table [sales customers] write=false
	// INSERT
	//   table [sales audit] write=true
}

// ReadOnly is the guard a read-only server runs before a job is created:
// nil for one query, an error an agent can act on for anything else.
func ExampleText_ReadOnly() {
	for _, sql := range []string{
		"SELECT name FROM sales.customers -- DELETE in a comment is no statement",
		"DELETE FROM sales.customers WHERE true",
	} {
		fmt.Println(sqltext.Parse(sql).ReadOnly())
	}
	// Output:
	// <nil>
	// read-only check failed: DELETE statements modify data; the server is read-only
}
