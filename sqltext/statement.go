package sqltext

// readStatement reads the objects one statement names.
func readStatement(toks []Token) Statement {
	return Statement{Unplaced: []string{"not implemented yet"}}
}
