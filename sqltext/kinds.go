package sqltext

import "strings"

// knownKinds are the statement kinds the reader knows the object positions
// of (docs/governance.md lists them).
var knownKinds = wordLines(`SELECT
GRAPH
INSERT
UPDATE
DELETE
MERGE
TRUNCATE TABLE
CREATE TABLE
CREATE TABLE FUNCTION
CREATE EXTERNAL TABLE
CREATE SNAPSHOT TABLE
CREATE VIEW
CREATE MATERIALIZED VIEW
CREATE FUNCTION
CREATE AGGREGATE FUNCTION
CREATE PROCEDURE
CREATE MODEL
CREATE SCHEMA
CREATE SEARCH INDEX
CREATE VECTOR INDEX
CREATE ROW ACCESS POLICY
CREATE PROPERTY GRAPH
DROP TABLE
DROP EXTERNAL TABLE
DROP SNAPSHOT TABLE
DROP VIEW
DROP MATERIALIZED VIEW
DROP FUNCTION
DROP TABLE FUNCTION
DROP PROCEDURE
DROP MODEL
DROP SCHEMA
DROP SEARCH INDEX
DROP VECTOR INDEX
DROP ROW ACCESS POLICY
DROP ALL ROW ACCESS POLICIES
DROP PROPERTY GRAPH
ALTER TABLE
ALTER VIEW
ALTER MATERIALIZED VIEW
ALTER SCHEMA
ALTER MODEL
ALTER VECTOR INDEX
UNDROP SCHEMA
GRANT
REVOKE
CALL
LOAD DATA
EXPORT DATA
EXPORT MODEL`)

// maxKindWords is the most words a known kind has.
const maxKindWords = 5

// statementKind names the statement from its leading keywords: the longest
// known kind they start with (CREATE OR REPLACE TEMP TABLE is CREATE
// TABLE), or the first keyword alone. known is knownKinds[kind]: a kind
// made of the first keyword alone is not known, or it would have been the
// longest known kind.
func statementKind(s *source, toks []token) (kind string, known bool) {
	i := leadingWord(toks)
	if i < 0 {
		return "", false
	}
	first := i
	// The words, as keywordOf has them: a word that is no keyword ("")
	// is in no known kind.
	var words [maxKindWords + 3]string
	n := 0
	for ; i < len(toks) && toks[i].kind() == Word && n < len(words); i++ {
		w := keywordOf(s.text(toks[i]))
		if n == 0 {
			switch w {
			case "SELECT", "WITH", "FROM", "TABLE":
				return "SELECT", true
			}
		}
		if n > 0 && words[0] == "CREATE" && (w == "OR" || w == "REPLACE" || w == "TEMP" || w == "TEMPORARY") {
			continue
		}
		words[n] = w
		n++
	}
	for k := min(n, maxKindWords); k > 0; k-- {
		if kind := knownKind(words[:k]); kind != "" {
			return kind, true
		}
	}
	kind = upper(s.text(toks[first]))
	if len(kind) > 32 {
		kind = kind[:32]
	}
	return kind, false
}

// knownKind returns the known kind that is words, one space apart, or "".
// It allocates nothing.
func knownKind(words []string) string {
	var buf [maxKindWords * (maxKeyword + 1)]byte
	key := buf[:0]
	for j, w := range words {
		if w == "" {
			return ""
		}
		if j > 0 {
			key = append(key, ' ')
		}
		key = append(key, w...)
	}
	return knownKindNames[string(key)]
}

// knownKindNames maps each of knownKinds to itself.
var knownKindNames = func() map[string]string {
	m := map[string]string{}
	for k := range knownKinds {
		m[k] = k
	}
	return m
}()

func wordLines(s string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		m[l] = true
	}
	return m
}

// checkTarget makes sure a statement that writes names what it writes: a
// DDL, DCL, DML or LOAD statement in which the reader found no target is
// one it did not understand.
func (r *reader) checkTarget() {
	if r.st.Kind == "SELECT" || r.st.Kind == "GRAPH" || r.st.Kind == "EXPORT DATA" || !r.known {
		return
	}
	for _, c := range r.objs.chunks[:r.objs.used] {
		for _, o := range c {
			if o.write || r.st.Kind == "CALL" && o.kind == Routine {
				return
			}
		}
	}
	r.unplaced("the object a " + r.st.Kind + " statement acts on could not be read")
}
