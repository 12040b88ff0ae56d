package rows

import "fmt"

// Format is the shape of a result row.
type Format string

const (
	// FormatCompact writes a row as a JSON array of values in schema order:
	// the column names are said once, in the result's schema. It is the
	// default because names repeated in every row were 43% of a typical
	// 100-row result.
	FormatCompact Format = "compact"
	// FormatObjects writes a row as a JSON object keyed by column name, in
	// column order.
	FormatObjects Format = "objects"
)

// ParseFormat reads a format argument; empty means FormatCompact.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", FormatCompact:
		return FormatCompact, nil
	case FormatObjects:
		return FormatObjects, nil
	}
	return "", fmt.Errorf("unknown row format %q (want compact or objects)", s)
}
