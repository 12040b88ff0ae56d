package sqltext

import (
	"go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestKeywordsHoldEveryWordCompared holds keywords to the words the readers
// compare words with. keywordOf answers "" for a word that is not among
// them, so a word compared with its answer (in a case clause or with == or
// !=) and missing from keywords would never match: every upper-case word
// the package's source compares anything with must be a keyword.
func TestKeywordsHoldEveryWordCompared(t *testing.T) {
	word := regexp.MustCompile(`^[A-Z][A-Z_]+$`)
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	seen := map[string]bool{}
	check := func(fset *gotoken.FileSet, e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != gotoken.STRING {
			return
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range strings.Fields(s) {
			if word.MatchString(w) && keywordOf(w) != w && !seen[w] {
				seen[w] = true
				missing = append(missing, w+" ("+fset.Position(lit.Pos()).String()+")")
			}
		}
	}
	compared := 0
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := gotoken.NewFileSet()
		file, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CaseClause:
				for _, e := range n.List {
					compared++
					check(fset, e)
				}
			case *ast.BinaryExpr:
				if n.Op == gotoken.EQL || n.Op == gotoken.NEQ {
					compared++
					check(fset, n.X)
					check(fset, n.Y)
				}
			}
			return true
		})
	}
	if compared < 100 {
		t.Fatalf("found only %d comparisons in the package's source", compared)
	}
	if len(missing) > 0 {
		t.Errorf("compared with a word but not among keywords: %s", strings.Join(missing, ", "))
	}
}
