package query

import "strings"

// sqlNames is what the text of a statement names, read with the guard's
// lexer: the paths in table position, the paths that name INFORMATION_SCHEMA
// views or table functions, and every identifier. The dataset allowlist uses
// it beside BigQuery's referencedTables, which cannot say whether a table
// was named or reached through a view, and which omits INFORMATION_SCHEMA
// and federated reads.
type sqlNames struct {
	// tables are paths in table position (after FROM, JOIN, INTO, UPDATE,
	// TABLE, MERGE, USING, INSERT, DELETE, or a comma in a FROM list),
	// split into parts.
	// CTE names, correlated paths (an alias's array column) and UNNEST are
	// left out.
	tables [][]string
	// functions are qualified paths called as functions in table position:
	// table-valued functions of a dataset.
	functions [][]string
	// infoSchema are paths that contain INFORMATION_SCHEMA, anywhere.
	infoSchema [][]string
	// external is set when EXTERNAL_QUERY is named.
	external bool
	// words holds every identifier and identifier part, lower-cased.
	words map[string]bool
}

// tablePositionKeywords are the keywords after which a path names a table.
var tablePositionKeywords = map[string]bool{
	"FROM": true, "JOIN": true, "INTO": true, "UPDATE": true, "TABLE": true, "MERGE": true, "USING": true,
	"INSERT": true, "DELETE": true,
}

// readNames reads the names in toks (all statements of the text).
func readNames(toks []sqlToken) *sqlNames {
	n := &sqlNames{words: map[string]bool{}}
	ctes := map[string]bool{}
	aliases := map[string]bool{}
	// parens holds, per open parenthesis, the word before it, so a FROM
	// inside EXTRACT(… FROM x) is not taken for a table.
	for _, t := range toks {
		switch t.kind {
		case tokWord:
			n.words[strings.ToLower(t.text)] = true
		case tokQuotedIdent:
			for _, p := range strings.Split(unquoteIdent(t.text), ".") {
				n.words[strings.ToLower(p)] = true
			}
		}
	}
	// Any mention counts, wherever the parser below would look.
	n.external = n.words["external_query"]
	var parens []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.isPunct('('):
			prev := ""
			if i > 0 && toks[i-1].kind == tokWord {
				prev = strings.ToUpper(toks[i-1].text)
			}
			parens = append(parens, prev)
			continue
		case t.isPunct(')'):
			if len(parens) > 0 {
				parens = parens[:len(parens)-1]
			}
			continue
		}
		if t.kind != tokWord {
			continue
		}
		kw := strings.ToUpper(t.text)
		switch {
		case kw == "AS" && i+1 < len(toks) && toks[i+1].isPunct('(') && i > 0:
			// "name AS (" defines a CTE (WITH a AS (…), b AS (…)).
			if prev := toks[i-1]; prev.kind == tokWord || prev.kind == tokQuotedIdent {
				ctes[strings.ToLower(unquoteIdent(prev.text))] = true
			}
		case tablePositionKeywords[kw]:
			if kw == "FROM" && (len(parens) > 0 && parens[len(parens)-1] == "EXTRACT" || i > 0 && strings.EqualFold(toks[i-1].text, "DISTINCT")) {
				continue
			}
			i = n.readFromList(toks, i+1, kw != "FROM" && kw != "JOIN" && kw != "USING", ctes, aliases) - 1
		}
	}
	for i := 0; i < len(toks); {
		path, next := readPath(toks, i)
		if len(path) == 0 {
			i++
			continue
		}
		if hasInformationSchema(path) {
			n.infoSchema = append(n.infoSchema, path)
		}
		i = next
	}
	return n
}

// readFromList reads the from-items starting at i: a path, an optional
// alias, and more items after commas. target is set after a keyword that
// names a table to write (INSERT, INTO, UPDATE, TABLE, MERGE), where a
// parenthesis after the path opens a column list, not a function's
// arguments. It returns where it stopped.
func (n *sqlNames) readFromList(toks []sqlToken, i int, target bool, ctes, aliases map[string]bool) int {
	for i < len(toks) {
		if t := toks[i]; t.isPunct('(') || t.kind == tokWord && (strings.EqualFold(t.text, "UNNEST") ||
			tablePositionKeywords[strings.ToUpper(t.text)] || reservedAfterTable[strings.ToUpper(t.text)]) {
			return i
		}
		path, next := readPath(toks, i)
		if len(path) == 0 {
			return i
		}
		i = next
		switch {
		case i < len(toks) && toks[i].isPunct('(') && !target:
			// A function in table position: a TVF when qualified.
			if len(path) > 1 {
				n.functions = append(n.functions, path)
			}
			return i
		case len(path) == 1 && ctes[strings.ToLower(path[0])]:
		case len(path) == 2 && aliases[strings.ToLower(path[0])]:
			// alias.array_column: a correlated UNNEST, not a table.
		default:
			n.tables = append(n.tables, path)
			aliases[strings.ToLower(path[len(path)-1])] = true
		}
		// [AS] alias
		if i < len(toks) && toks[i].kind == tokWord && strings.EqualFold(toks[i].text, "AS") {
			i++
		}
		if i < len(toks) && (toks[i].kind == tokWord && !reservedAfterTable[strings.ToUpper(toks[i].text)] || toks[i].kind == tokQuotedIdent) {
			aliases[strings.ToLower(unquoteIdent(toks[i].text))] = true
			i++
		}
		if i < len(toks) && toks[i].isPunct(',') {
			i++
			continue
		}
		return i
	}
	return i
}

// reservedAfterTable are words that may follow a table path and are not an
// alias.
var reservedAfterTable = map[string]bool{
	"WHERE": true, "GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true, "QUALIFY": true, "WINDOW": true,
	"JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true, "CROSS": true, "OUTER": true,
	"ON": true, "USING": true, "UNION": true, "INTERSECT": true, "EXCEPT": true, "FOR": true, "TABLESAMPLE": true,
	"SET": true, "VALUES": true, "SELECT": true, "WITH": true, "WHEN": true, "PIVOT": true, "UNPIVOT": true,
	"AS": true, "MATCH_RECOGNIZE": true, "OPTIONS": true, "PARTITION": true, "CLUSTER": true,
}

// readPath reads a dotted path at i: words (a project may be hyphenated:
// my-project.ds.t) and backtick-quoted parts, which may hold dots
// themselves. It returns the parts and the index after the path; no parts
// when toks[i] does not start one.
func readPath(toks []sqlToken, i int) ([]string, int) {
	var parts []string
	for i < len(toks) {
		t := toks[i]
		switch {
		case t.kind == tokQuotedIdent:
			parts = append(parts, strings.Split(unquoteIdent(t.text), ".")...)
			i++
		case t.kind == tokWord:
			word := t.text
			i++
			// Hyphenated project names are written unquoted too; the
			// tokens touch (no space) in that case.
			for i+1 < len(toks) && toks[i].isPunct('-') && toks[i].start == toks[i-1].end &&
				toks[i+1].kind == tokWord && toks[i+1].start == toks[i].end {
				word += "-" + toks[i+1].text
				i += 2
			}
			parts = append(parts, word)
		default:
			return parts, i
		}
		if i+1 < len(toks) && toks[i].isPunct('.') && (toks[i+1].kind == tokWord || toks[i+1].kind == tokQuotedIdent) {
			i++
			continue
		}
		return parts, i
	}
	return parts, i
}

// unquoteIdent strips a quoted identifier's backticks.
func unquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return s[1 : len(s)-1]
	}
	return s
}
