package semantic

import (
	"slices"
	"strings"
)

// grains are the time granularities metric_time and time dimensions take,
// finest first, as MetricFlow names them.
var grains = []string{"day", "week", "month", "quarter", "year"}

func isGrain(s string) bool { return slices.Contains(grains, s) }

// coarser reports whether grain a is at least as coarse as b.
func coarser(a, b string) bool { return slices.Index(grains, a) >= slices.Index(grains, b) }

// truncSQL truncates a time expression to a grain as MetricFlow renders it
// for BigQuery: DATETIME_TRUNC (a DATE stays a DATE), weeks starting on
// Monday (isoweek).
func truncSQL(expr, grain string) string {
	if grain == "week" {
		grain = "isoweek"
	}
	return "DATETIME_TRUNC(" + expr + ", " + grain + ")"
}

// name is a group-by or filter element split into its parts:
// entity links, the element, and a grain for time.
type name struct {
	links []string
	elem  string
	grain string
}

// parseName reads `customer__region`, `order_id__customer__region`,
// `metric_time__month`, `order_id__ordered_at__week` or `customer`.
func parseName(s string, grain string) (name, bool) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "__")
	for _, p := range parts {
		if !isIdent(p) {
			return name{}, false
		}
	}
	if grain == "" && len(parts) > 1 && isGrain(parts[len(parts)-1]) {
		grain, parts = parts[len(parts)-1], parts[:len(parts)-1]
	}
	return name{links: parts[:len(parts)-1], elem: parts[len(parts)-1], grain: grain}, true
}

func (n name) isMetricTime() bool { return len(n.links) == 0 && n.elem == "metric_time" }

// column is the element's column name in results, as MetricFlow names
// it: time always carries its grain.
func (n name) column() string {
	s := strings.Join(append(slices.Clone(n.links), n.elem), "__")
	if n.grain != "" {
		s += "__" + n.grain
	}
	return s
}

// isIdent reports whether s is a plain SQL identifier: the manifest's
// names become column aliases and are checked against it.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// closest suggests the names nearest to an unknown one: a hint for the
// INVALID_ARGUMENT an unknown name gets.
func closest(s string, candidates []string) string {
	type scored struct {
		name string
		d    int
	}
	var best []scored
	for _, c := range candidates {
		d := distance(s, c)
		if strings.Contains(c, s) || strings.Contains(s, c) {
			d = min(d, 2)
		}
		if d <= max(3, len(s)/2) {
			best = append(best, scored{c, d})
		}
	}
	if len(best) == 0 {
		return ""
	}
	slices.SortStableFunc(best, func(a, b scored) int { return a.d - b.d })
	var names []string
	for i, b := range best {
		if i == 3 {
			break
		}
		names = append(names, b.name)
	}
	return " (closest: " + strings.Join(names, ", ") + ")"
}

// distance is the Levenshtein distance, for names of a few dozen bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
