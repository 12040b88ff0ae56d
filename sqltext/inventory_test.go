package sqltext

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// bigQueryFunctions reads testdata/bigquery_functions.txt: BigQuery's
// documented functions, under "[scalar]" and "[table]".
func bigQueryFunctions(t *testing.T) (scalar, table []string) {
	t.Helper()
	data, err := os.ReadFile("testdata/bigquery_functions.txt")
	if err != nil {
		t.Fatal(err)
	}
	var section *[]string
	for _, line := range strings.Split(string(data), "\n") {
		switch line = strings.TrimSpace(line); {
		case line == "[scalar]":
			section = &scalar
		case line == "[table]":
			section = &table
		case line == "" || strings.HasPrefix(line, "#"):
		case section == nil:
			t.Fatalf("a function before [scalar] or [table]: %q", line)
		default:
			*section = append(*section, strings.Fields(line)...)
		}
	}
	if len(scalar) < 300 || len(table) < 50 {
		t.Fatalf("testdata/bigquery_functions.txt lists %d functions and %d table functions; want at least 300 and 50", len(scalar), len(table))
	}
	return scalar, table
}

// TestInventoryCoversBigQueryFunctions holds the reader's inventory to
// BigQuery's function reference (issue 35), both ways: every documented
// function and table function is known and classified (it computes on its
// arguments; or it is table-valued, reading the tables and models of its
// TABLE and MODEL arguments; or it reaches outside BigQuery's datasets
// through a connection, an ObjectRef, a graph or Earth Engine), and the
// reader reads a call of it as classified; and the inventory knows no
// function the reference does not list.
func TestInventoryCoversBigQueryFunctions(t *testing.T) {
	scalar, table := bigQueryFunctions(t)
	documented := map[string]bool{}
	for _, n := range append(slices.Clone(scalar), table...) {
		if documented[n] {
			t.Errorf("%s is listed twice", n)
		}
		documented[n] = true
	}
	for _, n := range table {
		fn, ok := knownFunctions[n]
		if !ok || !fn.table {
			t.Errorf("table function %s: known %v, table-valued %v", n, ok, fn.table)
			continue
		}
		sql := "SELECT * FROM " + n + "(TABLE sales.t, MODEL sales.m)"
		st := Parse(sql).Statements[0]
		if fn.args == argsExpressions {
			if got := describe(st); got != "SELECT table:sales.t model:sales.m" {
				t.Errorf("%s: %s", sql, got)
			}
		} else if len(st.Unplaced) == 0 && !slices.ContainsFunc(st.Objects, func(o Object) bool { return o.Kind == Connection || o.Kind == Graph }) {
			t.Errorf("%s reaches outside BigQuery's datasets, but %s names no connection or graph and is not unplaced", n, sql)
		}
	}
	for _, n := range scalar {
		fn, known := knownFunctions[n]
		switch {
		case builtinFunctions[n] && known:
			t.Errorf("%s is both a function that computes and one the inventory reads the arguments of", n)
		case !builtinFunctions[n] && !known:
			t.Errorf("function %s is not in the inventory", n)
		case known && fn.table:
			t.Errorf("function %s is classified as table-valued", n)
		}
		sql := "SELECT " + n + "(x, (SELECT 1 FROM secret.u)) FROM sales.t"
		st := Parse(sql).Statements[0]
		if got, want := len(st.Unplaced) > 0, known && fn.args != argsExpressions; got != want {
			t.Errorf("%s: unplaced %v (%v), want %v", sql, got, st.Unplaced, want)
		}
		if !slices.ContainsFunc(st.Objects, func(o Object) bool { return strings.Join(o.Path, ".") == "secret.u" }) {
			t.Errorf("%s: the subquery's table is not placed: %s", sql, describe(st))
		}
	}
	for n := range builtinFunctions {
		if !documented[n] {
			t.Errorf("builtinFunctions has %s, which BigQuery's reference does not list", n)
		}
	}
	for n := range knownFunctions {
		if !documented[n] {
			t.Errorf("knownFunctions has %s, which BigQuery's reference does not list", n)
		}
	}
	// A made-up name of BigQuery's namespaces is not guessed at.
	for _, sql := range []string{"SELECT NET.NOT_A_FUNCTION(x)", "SELECT SAFE.KEYS.NOT_A_FUNCTION(x)", "SELECT hll_count.not_a_function(x)",
		"SELECT * FROM NOT_A_TVF(TABLE sales.t)", "SELECT * FROM UPPER('x')"} {
		if st := Parse(sql).Statements[0]; len(st.Unplaced) == 0 {
			t.Errorf("%s: %s, want it unplaced", sql, describe(st))
		}
	}
}
