package bqerr

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/errors.md")

func TestErrorReferenceIsCurrent(t *testing.T) {
	if len(codeDocs) != len(codes) {
		t.Fatalf("docs cover %d codes, there are %d", len(codeDocs), len(codes))
	}
	for i, d := range codeDocs {
		if e := d.example(); e.Code != d.code || e.Code != codes[i] {
			t.Errorf("example for %s maps to %s", d.code, e.Code)
		}
	}
	got := reference()
	if *update {
		if err := os.WriteFile("../docs/errors.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("../docs/errors.md")
	if err != nil || string(want) != got {
		t.Error("docs/errors.md is out of date: run make docs")
	}
}
