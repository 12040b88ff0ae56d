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
// TABLE), or the first keyword alone.
func statementKind(toks []Token) string {
	i := leadingWord(toks)
	if i < 0 {
		return ""
	}
	first := strings.ToUpper(toks[i].Text)
	switch first {
	case "SELECT", "WITH", "FROM", "TABLE":
		return "SELECT"
	}
	var words []string
	for ; i < len(toks) && toks[i].Kind == Word && len(words) < maxKindWords+3; i++ {
		w := strings.ToUpper(toks[i].Text)
		if len(words) > 0 && words[0] == "CREATE" && (w == "OR" || w == "REPLACE" || w == "TEMP" || w == "TEMPORARY") {
			continue
		}
		words = append(words, w)
	}
	for n := min(len(words), maxKindWords); n > 0; n-- {
		if k := strings.Join(words[:n], " "); knownKinds[k] {
			return k
		}
	}
	if len(first) > 32 {
		first = first[:32]
	}
	return first
}

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
	if r.st.Kind == "SELECT" || r.st.Kind == "GRAPH" || r.st.Kind == "EXPORT DATA" || !knownKinds[r.st.Kind] {
		return
	}
	for _, o := range r.st.Objects {
		if o.Write || r.st.Kind == "CALL" && o.Kind == Routine {
			return
		}
	}
	r.unplaced("the object a " + r.st.Kind + " statement acts on could not be read")
}
