package server

import (
	"slices"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// TestCutResultsNameExportOnlyWhenListed: listsExport, which tells package
// query whether a cut result's hint may name export_results, agrees with
// the tools New lists, for every toolset choice and mode.
func TestCutResultsNameExportOnlyWhenListed(t *testing.T) {
	all := []Toolset{ToolsetSchema, ToolsetQuery, ToolsetJobs, ToolsetWrite, ToolsetExport}
	sawListed := false
	for _, sets := range [][]Toolset{nil, {ToolsetQuery}, {ToolsetExport}, {ToolsetQuery, ToolsetExport}, all} {
		for _, mode := range []Config{{}, {Settings: query.Settings{AllowWrites: true}}, {ReadOnly: true}} {
			opts := mode
			opts.Toolsets = sets
			got, _ := listTools(t, opts)
			listed := slices.Contains(got, "export_results")
			if listsExport(sets, opts.ReadOnly, opts.AllowWrites) != listed {
				t.Errorf("toolsets %v, read-only %v, writes %v: listsExport disagrees with the listing (export_results listed: %v)",
					sets, opts.ReadOnly, opts.AllowWrites, listed)
			}
			sawListed = sawListed || listed
		}
	}
	if !sawListed {
		t.Error("no case listed export_results")
	}
}
