package export

import (
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// estimateCap is the check export hands package query with a query to run
// (RunToTable): a query the dry run estimates to read more than max bytes
// (--max-export-bytes) is refused before its job starts and before any of
// the caller's budget is held. What a query reads is the only size known
// before it runs; its result may be smaller (an aggregate) or, for some
// joins, larger, which a file export's write-time check still holds.
// A dry run that gives no estimate (0 bytes: BigQuery gives none for some
// statements, and an emulator may give none at all) passes: the cap cannot
// be checked in advance, and is then held only as a file is written.
func estimateCap(sql string, max int64) func(estimate int64) error {
	return func(estimate int64) error {
		if max <= 0 || estimate <= max {
			return nil
		}
		return bqerr.Newf(bqerr.ResourceExhausted,
			"the query would read about %s, more than this server allows one export (--max-export-bytes %s); nothing ran",
			governance.FormatBytes(estimate), governance.FormatBytes(max)).
			WithRetryable(false).
			WithHint("Narrow the query (filter on the partition column, a WHERE clause) or select fewer columns, or ask the user to raise --max-export-bytes. " +
				"A small result of a large scan (an aggregate): run it with execute_sql, then export its jobId.").
			WithQuery(sql)
	}
}
