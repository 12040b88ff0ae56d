package insert

import (
	"sort"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// maxErrors is the most row errors one result lists: enough to see the
// pattern (a wrong column, a bad type), small enough for an agent's
// context when every one of 500 rows fails the same way.
const maxErrors = 20

// stopped is the reason BigQuery gives rows that were valid but not
// inserted because another row of an all-or-none request was not.
const stopped = "stopped"

// Output is insert_rows' result.
type Output struct {
	// Table is the table written, as project.dataset.table.
	Table        string `json:"table"`
	InsertedRows int    `json:"insertedRows"`
	FailedRows   int    `json:"failedRows"`
	// Errors are BigQuery's reasons for the rows it refused, by row index
	// (from 0, in the order sent), at most 20; OmittedErrors counts the
	// ones left out.
	Errors        []RowError `json:"errors,omitempty"`
	OmittedErrors int        `json:"omittedErrors,omitempty"`
	Hint          string     `json:"hint,omitempty"`
}

// RowError is one reason BigQuery refused one row.
type RowError struct {
	Index  int    `json:"index"`
	Reason string `json:"reason,omitempty"`
	// Location is the field the error is about, when BigQuery names one.
	Location string `json:"location,omitempty"`
	Message  string `json:"message,omitempty"`
}

// result reads insertAll's answer for n rows. Without skipInvalidRows one
// invalid row fails them all: BigQuery lists the valid ones as stopped,
// which are counted as failed but not listed, since nothing is wrong with
// them.
func result(ref bqtype.TableRef, n int, skipInvalid bool, insertErrors []*bq.TableDataInsertAllResponseInsertErrors) *Output {
	out := &Output{Table: ref.String(), InsertedRows: n}
	if len(insertErrors) == 0 {
		return out
	}
	failed := map[int64]bool{}
	var all []RowError
	for _, ie := range insertErrors {
		if ie == nil || ie.Index < 0 || ie.Index >= int64(n) {
			continue
		}
		failed[ie.Index] = true
		for _, e := range ie.Errors {
			if e == nil || e.Reason == stopped {
				continue
			}
			all = append(all, RowError{
				Index:    int(ie.Index),
				Reason:   e.Reason,
				Location: e.Location,
				Message:  bqerr.Truncate(bqerr.Redact(e.Message), 300),
			})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Index < all[j].Index })
	if len(all) > maxErrors {
		out.OmittedErrors = len(all) - maxErrors
		all = all[:maxErrors]
	}
	out.Errors = all
	if !skipInvalid {
		out.InsertedRows, out.FailedRows = 0, n
		out.Hint = "No row was inserted: one invalid row fails the whole call. Fix the rows listed in errors and send all the rows again, or set skipInvalidRows to insert the valid ones."
		return out
	}
	out.FailedRows = len(failed)
	out.InsertedRows = n - out.FailedRows
	out.Hint = "The rows listed in errors were not inserted; the others were. Fix those rows and send only them again."
	return out
}
