package governance_test

import (
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// The allowlist (--datasets) names the datasets agents may read: a bare
// dataset belongs to the server's project, and "*" matches any run of
// characters within a part. Every tool asks it before a request leaves.
func ExampleAllowlist_Allows() {
	allow, err := governance.ParseAllowlist("sales, marketing_*, shared-data.public", "my-project")
	if err != nil {
		panic(err)
	}
	fmt.Println(allow)
	for _, ds := range [][2]string{
		{"my-project", "sales"},
		{"my-project", "marketing_eu"},
		{"shared-data", "public"},
		{"my-project", "hr"},
		{"other-project", "sales"},
	} {
		fmt.Printf("%s.%s: %v\n", ds[0], ds[1], allow.Allows(ds[0], ds[1]))
	}
	// Output:
	// my-project.sales, my-project.marketing_*, shared-data.public
	// my-project.sales: true
	// my-project.marketing_eu: true
	// shared-data.public: true
	// my-project.hr: false
	// other-project.sales: false
}

// With no --datasets there is no allowlist: ParseAllowlist returns nil, and
// a nil *Allowlist allows everything.
func ExampleParseAllowlist_none() {
	allow, err := governance.ParseAllowlist("", "my-project")
	fmt.Println(allow == nil, err, allow.Allows("any-project", "any_dataset"))
	// Output: true <nil> true
}

// Check is what a tool returns when the allowlist refuses a dataset: a
// PERMISSION_DENIED error whose hint names the datasets the server reads.
func ExampleAllowlist_Check() {
	allow, err := governance.ParseAllowlist("sales", "my-project")
	if err != nil {
		panic(err)
	}
	e := bqerr.From(allow.Check("my-project", "hr"))
	fmt.Println(e.Code)
	fmt.Println(e.Message)
	fmt.Println(e.Hint)
	// Output:
	// PERMISSION_DENIED
	// dataset my-project.hr is not in this server's dataset allowlist
	// This server only reads the datasets my-project.sales (--datasets). Use tables from those, or ask the user to allow the dataset.
}
