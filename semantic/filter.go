package semantic

import (
	"fmt"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// A filter is a where filter read by the SQL lexer: its tokens, with each
// {{ Dimension('…') }}, {{ TimeDimension('…', '…') }} and
// {{ Entity('…') }} template replaced by the element it names. Filters are
// parsed, never pasted: what the compiler writes is rebuilt from the
// tokens, and only literals, operators, a short list of scalar functions
// and keywords, and the named elements may appear. A subquery, a table, a
// column or any other identifier is refused.
type filter struct {
	text   string
	pieces []piece
}

// piece is a token's text, or an element (ref set) with the space before
// it.
type piece struct {
	text  string
	ref   *name
	space bool
}

// allowedWord reports whether a word may appear in a filter beside the
// templates: operators, literals' keywords, date parts, types and scalar
// functions that read no table.
func allowedWord(w string) bool {
	switch strings.ToUpper(w) {
	case "AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE", "BETWEEN", "LIKE", "CASE", "WHEN", "THEN", "ELSE", "END",
		"INTERVAL", "DAY", "WEEK", "ISOWEEK", "MONTH", "QUARTER", "YEAR", "DAYOFWEEK", "DAYOFYEAR", "HOUR", "MINUTE", "SECOND",
		"DATE", "DATETIME", "TIMESTAMP", "AS", "CAST", "SAFE_CAST", "STRING", "INT64", "FLOAT64", "NUMERIC", "BIGNUMERIC", "BOOL",
		"LOWER", "UPPER", "TRIM", "COALESCE", "IFNULL", "NULLIF", "IF", "DATE_TRUNC", "TIMESTAMP_TRUNC", "DATETIME_TRUNC",
		"DATE_SUB", "DATE_ADD", "DATETIME_SUB", "DATETIME_ADD", "TIMESTAMP_SUB", "TIMESTAMP_ADD", "EXTRACT", "FROM",
		"LENGTH", "CONCAT", "ABS", "ROUND", "STARTS_WITH", "ENDS_WITH":
		return true
	}
	return false
}

// parseFilter reads one where filter.
func parseFilter(src string) (*filter, error) {
	toks, incomplete := sqltext.Lex(src)
	if incomplete != "" {
		return nil, refuse(src, incomplete)
	}
	f := &filter{text: src}
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		space := i > 0 && toks[i-1].End < t.Start
		switch {
		case t.IsPunct('{'):
			n, next, err := readTemplate(src, toks, i)
			if err != nil {
				return nil, err
			}
			f.pieces = append(f.pieces, piece{ref: &n, space: space})
			i = next - 1
			continue
		case t.Kind == sqltext.String:
		case t.Kind == sqltext.Word && t.Text[0] >= '0' && t.Text[0] <= '9':
		case t.IsPunct('.') && decimalPoint(toks, i):
		case t.Kind == sqltext.Word && allowedWord(t.Text):
		case t.Kind == sqltext.Punct && len(t.Text) == 1 && strings.Contains("()=<>!+-*/|,", t.Text):
			if t.Text == "(" {
				depth++
			} else if t.Text == ")" {
				if depth--; depth < 0 {
					return nil, refuse(src, "a ')' closes what the filter did not open")
				}
			}
		default:
			return nil, refuse(src, fmt.Sprintf("%q is not a dimension, entity, literal, operator or allowed function; name columns with {{ Dimension('entity__name') }}", t.Text))
		}
		f.pieces = append(f.pieces, piece{text: t.Text, space: space})
	}
	if depth != 0 {
		return nil, refuse(src, "its parentheses do not balance")
	}
	if len(f.pieces) == 0 {
		return nil, refuse(src, "it is empty")
	}
	return f, nil
}

// decimalPoint reports whether the '.' at toks[i] is inside a number
// (1.5, .5): the lexer reads a number's digits as words around it.
func decimalPoint(toks []sqltext.Token, i int) bool {
	digits := func(t sqltext.Token) bool { return t.Kind == sqltext.Word && t.Text[0] >= '0' && t.Text[0] <= '9' }
	if i+1 >= len(toks) || !digits(toks[i+1]) || toks[i+1].Start != toks[i].End {
		return false
	}
	if i == 0 || toks[i-1].End != toks[i].Start {
		return true
	}
	return digits(toks[i-1])
}

// readTemplate reads `{{ Kind('name'[, 'grain']) [.grain('g')] }}` from
// toks[i], returning the element and the index after it.
func readTemplate(src string, toks []sqltext.Token, i int) (name, int, error) {
	at := func(j int) sqltext.Token {
		if j < len(toks) {
			return toks[j]
		}
		return sqltext.Token{}
	}
	bad := func(why string) (name, int, error) { return name{}, 0, refuse(src, why) }
	if !at(i+1).IsPunct('{') || at(i+2).Kind != sqltext.Word || !at(i+3).IsPunct('(') {
		return bad("a template is {{ Dimension('entity__name') }}, {{ TimeDimension('metric_time', 'day') }} or {{ Entity('name') }}")
	}
	kind := at(i + 2).Text
	var args []string
	j := i + 4
	for {
		t := at(j)
		if t.Kind != sqltext.String {
			return bad("a template's arguments are quoted names")
		}
		s, ok := unquote(t.Text)
		if !ok {
			return bad("a template's arguments are plain quoted names")
		}
		args = append(args, s)
		j++
		if at(j).IsPunct(',') {
			j++
			continue
		}
		if !at(j).IsPunct(')') {
			return bad("a template's arguments are quoted names, separated by commas")
		}
		j++
		break
	}
	grain := ""
	if at(j).IsPunct('.') && at(j+1).IsWord("grain") && at(j+2).IsPunct('(') && at(j+3).Kind == sqltext.String && at(j+4).IsPunct(')') {
		grain, _ = unquote(at(j + 3).Text)
		j += 5
	}
	if !at(j).IsPunct('}') || !at(j+1).IsPunct('}') {
		return bad("a template ends with }}")
	}
	j += 2
	switch kind {
	case "Dimension", "Entity":
		if len(args) != 1 {
			return bad(kind + " takes one name")
		}
	case "TimeDimension":
		if len(args) > 2 {
			return bad("TimeDimension takes a name and a grain")
		}
		if len(args) == 2 {
			grain = args[1]
		}
	case "Metric":
		return bad("metric filters ({{ Metric(…) }}) are not supported; filter on dimensions")
	default:
		return bad(fmt.Sprintf("%q is not Dimension, TimeDimension or Entity", kind))
	}
	grain = strings.ToLower(grain)
	if grain != "" && !isGrain(grain) {
		return bad(fmt.Sprintf("grain %q is not one of %s", grain, strings.Join(grains, ", ")))
	}
	n, ok := parseName(args[0], grain)
	if !ok {
		return bad(fmt.Sprintf("%q is not an element name (entity__name)", args[0]))
	}
	if kind == "TimeDimension" && n.grain == "" {
		n.grain = "day"
	}
	return n, j, nil
}

// unquote reads a single- or double-quoted name with no escapes.
func unquote(s string) (string, bool) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] || strings.ContainsAny(s[1:len(s)-1], "\\'\"") {
		return "", false
	}
	return s[1 : len(s)-1], true
}

// render writes the filter with each element replaced by its column
// expression.
func (f *filter) render(col func(name) (string, error)) (string, error) {
	var b strings.Builder
	b.WriteByte('(')
	for i, p := range f.pieces {
		if p.space && i > 0 {
			b.WriteByte(' ')
		}
		if p.ref == nil {
			b.WriteString(p.text)
			continue
		}
		expr, err := col(*p.ref)
		if err != nil {
			return "", err
		}
		b.WriteString(expr)
	}
	b.WriteByte(')')
	return b.String(), nil
}

func refuse(filter, why string) error {
	return bqerr.Invalid(fmt.Sprintf("where filter %q refused: %s", bqerr.Truncate(filter, 200), why),
		"Write filters as MetricFlow does: {{ Dimension('customer__region') }} = 'EU', {{ TimeDimension('metric_time', 'day') }} >= '2026-01-01', {{ Entity('customer') }} = 42. Only literals, comparisons, AND/OR/NOT, IN, BETWEEN, LIKE, IS NULL and a few scalar functions may appear beside them.")
}
