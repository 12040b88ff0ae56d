package bqerr

import (
	"strconv"
)

// bqLocationRE finds the SQL position in a message: BigQuery writes
// "... at [3:15]", ZetaSQL (and so the emulator) writes "... [at 3:15]".
var bqLocationRE = lazyRegexp(`\bat \[(\d{1,9}):(\d{1,9})\]|\[at (\d{1,9}):(\d{1,9})\]`)

// parseSQLLocation finds where in the SQL a BigQuery or ZetaSQL error
// message points, and returns the message without the ZetaSQL status
// payloads that the BigQuery emulator appends (see emulator.go). zetasql
// reports whether such a payload was present, which marks the message as the
// emulator's analyzer output rather than a BigQuery backend fault.
//
// BigQuery says "at [3:15]" in prose and the text is kept (it reads well).
// loc is nil when no position is found. Malformed input yields no location
// rather than a panic.
func parseSQLLocation(msg string) (loc *Location, cleaned string, zetasql bool) {
	cleaned, payloadLoc, zetasql := stripPayloads(msg)
	if m := bqLocationRE().FindStringSubmatch(cleaned); m != nil {
		l, c := m[1], m[2]
		if l == "" {
			l, c = m[3], m[4]
		}
		line, _ := strconv.Atoi(l)
		col, _ := strconv.Atoi(c)
		if line > 0 || col > 0 {
			return &Location{Line: line, Column: col}, cleaned, zetasql
		}
	}
	return payloadLoc, cleaned, zetasql
}
