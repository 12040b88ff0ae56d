package bqfake_test

import (
	"context"
	"fmt"
	"net/http"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// exampleTB stands in for the *testing.T an Example has none of: the
// fake's cleanups run when the example ends.
type exampleTB struct{ cleanups []func() }

func (*exampleTB) Helper()                           {}
func (e *exampleTB) Cleanup(f func())                { e.cleanups = append(e.cleanups, f) }
func (*exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func (e *exampleTB) done() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
}

// A test adds what the store serves, scripts what it must not answer as
// BigQuery would (here a 503 on the first tables.get), and asserts on the
// request log. In a test, pass t to New.
func Example() {
	t := &exampleTB{}
	defer t.done()
	fake := bqfake.New(t)
	fake.AddDataset("sales", "US")
	fake.AddTable(&bq.Table{
		TableReference: &bq.TableReference{ProjectId: "p", DatasetId: "sales", TableId: "customers"},
		Schema:         bqfake.Columns("id INTEGER", "name STRING"),
	}, bqfake.Row("1", "Ada"))
	fake.On(bqfake.TablesGet).Times(1).Fail(http.StatusServiceUnavailable, "backendError")

	rest := fake.REST(t, nil)
	ctx := context.Background()
	_, err := rest.Tables.Get("p", "sales", "customers").Context(ctx).Do()
	fmt.Println("first tables.get:", err)
	tbl, err := rest.Tables.Get("p", "sales", "customers").Context(ctx).Do()
	fmt.Println("second tables.get:", tbl.Schema.Fields[1].Name, err)
	rows, err := rest.Tabledata.List("p", "sales", "customers").Context(ctx).Do()
	fmt.Println("rows:", rows.Rows[0].F[1].V, err)
	fmt.Println("tables.get requests:", fake.Count(bqfake.TablesGet))
	// Output:
	// first tables.get: googleapi: Error 503: injected backendError, backendError
	// second tables.get: name <nil>
	// rows: Ada <nil>
	// tables.get requests: 2
}
