package query

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestConfigIsSetOnlyBeforeNewService: NewService builds the job runner
// from the finished Config, so a Config field written afterwards would be
// seen by some calls and not by the runner. No code in this package, tests
// included, writes through a Service's cfg; a test configures with
// newTestService's configure funcs instead.
func TestConfigIsSetOnlyBeforeNewService(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				var written []ast.Expr
				switch n := n.(type) {
				case *ast.AssignStmt:
					written = n.Lhs
				case *ast.IncDecStmt:
					written = []ast.Expr{n.X}
				}
				for _, e := range written {
					if rootField(e) == "cfg" {
						t.Errorf("%s: %s writes a Service's config after NewService; set it in the Config before", fset.Position(e.Pos()), fn.Name.Name)
					}
				}
				return true
			})
		}
	}
}

// rootField is the field an assigned expression selects on its root
// variable: "cfg" for s.cfg.State, s.cfg.Settings.MaxWait and
// s.cfg.PricePerTiBByLocation["eu"]; "State" for cfg.State; empty for a
// plain variable.
func rootField(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			if _, root := x.X.(*ast.Ident); root {
				return x.Sel.Name
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}
