// Package docs holds no code, only the test that keeps architecture.md true
// to the code it describes.
package docs

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/bigquery-mcp/bigquery-mcp"

// ownedPackage is one row of architecture.md's "Who owns what" table.
type ownedPackage struct {
	path  string   // relative to the module: "server", "auth/clientauth"
	knows []string // the packages of ours named in its Knows column
	line  int
}

var backticked = regexp.MustCompile("`([^`]+)`")

// whoOwnsWhat reads the table's rows. A Knows cell names packages of ours in
// backticks and anything else (go-sdk, the Google clients) in plain words;
// "nothing of ours" is an empty cell for the test.
func whoOwnsWhat(t *testing.T) []ownedPackage {
	t.Helper()
	f, err := os.Open("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		rows    []ownedPackage
		inTable bool
		n       int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case line == "## Who owns what":
			inTable = true
			continue
		case !inTable:
			continue
		case strings.HasPrefix(line, "## "):
			return rows
		case !strings.HasPrefix(line, "| `"):
			continue // the header, its rule, blank lines
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 3 {
			t.Fatalf("architecture.md:%d: want | Package | Owns | Knows |, got %d cells", n, len(cells))
		}
		row := ownedPackage{path: strings.Trim(strings.TrimSpace(cells[0]), "`"), line: n}
		for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
			row.knows = append(row.knows, m[1])
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal(`architecture.md has no "## Who owns what" table`)
	}
	return rows
}

// goPackage is what go list says of one of our packages.
type goPackage struct {
	ImportPath string
	GoFiles    []string
	Imports    []string
}

// importGraph is go list's view of the module: each package with non-test
// files, and the packages of ours it imports.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,GoFiles,Imports", "./...")
	cmd.Dir = ".."
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if len(p.GoFiles) == 0 {
			continue // tests only, like this package
		}
		var ours []string
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				ours = append(ours, rel)
			}
		}
		slices.Sort(ours)
		graph[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = ours
	}
	return graph
}

// The "Who owns what" table is the import graph: a row for every package
// (a row for a folder, such as packaging, covers the packages under it that
// have no row of their own), in an order where a package knows only
// packages below it, and each Knows cell names exactly the packages of ours
// that the row's packages import. When this fails, the message says what
// the row should name.
func TestArchitectureDrawsTheImportGraph(t *testing.T) {
	rows := whoOwnsWhat(t)
	graph := importGraph(t)
	byPath := map[string]ownedPackage{}
	for _, r := range rows {
		if _, dup := byPath[r.path]; dup {
			t.Errorf("architecture.md:%d: %s has two rows", r.line, r.path)
		}
		byPath[r.path] = r
	}
	// owner is the row that covers package p: its own, or its nearest
	// folder's.
	owner := func(p string) (string, bool) {
		for dir := p; dir != "."; dir = path.Dir(dir) {
			if _, ok := byPath[dir]; ok {
				return dir, true
			}
		}
		return "", false
	}
	imports := map[string][]string{} // by row
	for p, imps := range graph {
		o, ok := owner(p)
		if !ok {
			t.Errorf("architecture.md has no row for %s (it imports %s)", p, orNothing(imps))
			continue
		}
		for _, imp := range imps {
			if io, ok := owner(imp); ok && io != o && !slices.Contains(imports[o], io) {
				imports[o] = append(imports[o], io)
			}
		}
		if _, ok := imports[o]; !ok {
			imports[o] = nil // a row that covers packages, importing nothing of ours
		}
	}
	below := map[string]bool{} // the rows after the current one
	for _, r := range rows {
		below[r.path] = true
	}
	for _, r := range rows {
		delete(below, r.path)
		want, ok := imports[r.path]
		if !ok {
			if _, err := os.Stat("../" + r.path + "/go.mod"); err == nil {
				continue // a module of its own (integration_test), drawn from outside
			}
			t.Errorf("architecture.md:%d: %s is no package of the module and holds none", r.line, r.path)
			continue
		}
		slices.Sort(want)
		knows := slices.Sorted(slices.Values(r.knows))
		if !slices.Equal(knows, want) {
			t.Errorf("architecture.md:%d: %s knows %s by the table, imports %s by go list; its Knows cell should name %s",
				r.line, r.path, orNothing(knows), orNothing(want), cell(want))
		}
		for _, k := range r.knows {
			if !below[k] {
				t.Errorf("architecture.md:%d: %s knows %s, whose row is not below it: the table runs from cmd down to the leaves", r.line, r.path, k)
			}
		}
	}
}

func orNothing(pkgs []string) string {
	if len(pkgs) == 0 {
		return "nothing of ours"
	}
	return strings.Join(pkgs, ", ")
}

// cell is a Knows cell naming pkgs.
func cell(pkgs []string) string {
	if len(pkgs) == 0 {
		return "nothing of ours"
	}
	quoted := make([]string, len(pkgs))
	for i, p := range pkgs {
		quoted[i] = fmt.Sprintf("`%s`", p)
	}
	return strings.Join(quoted, ", ")
}
