package sqltext

import "strings"

// keywords are the words the readers compare words with, each mapped to
// itself: the reserved keywords, the words that start or end an object
// position, the words of the statement kinds and source clauses the
// reader knows, and those the read-only guard looks for.
// TestKeywordsHoldEveryWordCompared holds it to every upper-case word the
// package's source compares anything with.
var keywords = func() map[string]string {
	m := map[string]string{}
	add := func(w string) {
		if len(w) > maxKeyword || w[0] < 'A' || w[0] > 'Z' {
			panic("sqltext: keyword " + w + " is longer than maxKeyword or does not start with a letter")
		}
		m[w] = w
	}
	for w := range reserved {
		add(w)
	}
	for w := range notAlias {
		add(w)
	}
	for k := range knownKinds {
		for _, w := range strings.Fields(k) {
			add(w)
		}
	}
	for _, c := range sourceClauses {
		for _, w := range strings.Fields(c) {
			add(w)
		}
	}
	for _, w := range strings.Fields(`FROM JOIN USING ON UNION INTERSECT EXCEPT CASE END WHEN WHERE GROUP HAVING
		QUALIFY WINDOW ORDER LIMIT SELECT SET VALUES OPTIONS RECURSIVE TABLE VIEW MODEL SCHEMA FUNCTION
		PROCEDURE CALL INTO OVERWRITE UPDATE DELETE INSERT MERGE RENAME TO GRAPH PROPERTY CONNECTION WITH
		LIBRARY CONNECTION_ID EXPORT DATA URI EXECUTE GRAPH_TABLE UNNEST LATERAL EXTRACT DISTINCT FILES
		CLONE COPY LIKE REFERENCES REPLICA OF IF NOT EXISTS AS OR REPLACE TEMP TEMPORARY AGGREGATE BEGIN
		TRANSACTION THEN ELSE DO LOOP WHILE FOR REPEAT TRUNCATE LOAD SAFE DEFAULT INFORMATION_SCHEMA
		DECLARE COMMIT ROLLBACK BREAK LEAVE CONTINUE ITERATE RETURN RAISE ASSERT EXTEND DROP NODE EDGE TABLES`) {
		add(w)
	}
	return m
}()

// maxKeyword bounds the length of a keyword (the longest,
// ASSERT_ROWS_MODIFIED, has 20 letters).
const maxKeyword = 24

// keywordsBy are the keywords by length and first letter, with whether
// each is reserved and whether it is notAlias: most words are answered
// without a comparison, and the others with a few, faster than a map's
// hash.
var keywordsBy = func() (by [maxKeyword + 1][26][]keywordEntry) {
	for w := range keywords {
		e := keywordEntry{word: w, reserved: reserved[w], notAlias: notAlias[w]}
		by[len(w)][w[0]-'A'] = append(by[len(w)][w[0]-'A'], e)
	}
	return by
}()

type keywordEntry struct {
	word               string
	reserved, notAlias bool
}

// keywordOf returns the word w upper-cased when it is one of keywords, and
// "" for any other word. It allocates nothing: a word is looked up for
// each token, and strings.ToUpper allocates for every lower-case one.
func keywordOf(w string) string { return lookupKeyword(w).word }

// isReserved reports whether the word w is a reserved keyword.
func isReserved(w string) bool { return lookupKeyword(w).reserved }

var notKeyword keywordEntry

// lookupKeyword returns w's entry among keywords, or a zero entry.
func lookupKeyword(w string) *keywordEntry {
	if len(w) == 0 || len(w) > maxKeyword {
		return &notKeyword
	}
	c := w[0] &^ ('a' - 'A')
	if c < 'A' || c > 'Z' {
		return &notKeyword
	}
	entries := keywordsBy[len(w)][c-'A']
next:
	for e := range entries {
		k := entries[e].word
		for i := 1; i < len(w); i++ {
			c := w[i]
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			if c != k[i] {
				continue next
			}
		}
		return &entries[e]
	}
	return &notKeyword
}

// upper is strings.ToUpper for a word, allocating only for a lower-case
// word that is not a keyword.
func upper(w string) string {
	if k := keywordOf(w); k != "" {
		return k
	}
	return strings.ToUpper(w)
}
