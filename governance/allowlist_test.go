package governance

import (
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

func TestAllowlistMatches(t *testing.T) {
	a, err := ParseAllowlist(" sales , mkt_* ,other-proj.public, `example.com:legacy.ds`", "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		project, dataset string
		want             bool
	}{
		{"p", "sales", true},
		{"p", "Sales", false}, // dataset IDs are case-sensitive
		{"p", "mkt_eu", true},
		{"p", "mkt", false},
		{"p", "secret", false},
		{"other-proj", "public", true},
		{"other-proj", "sales", false},
		{"q", "sales", false},
		{"example.com:legacy", "ds", true},
	} {
		if got := a.Allows(tc.project, tc.dataset); got != tc.want {
			t.Errorf("Allows(%s, %s) = %v, want %v", tc.project, tc.dataset, got, tc.want)
		}
	}
	if !a.AllowsProject("other-proj") || a.AllowsProject("q") {
		t.Error("AllowsProject is wrong")
	}
	err = a.Check("p", "secret")
	e, ok := bqerr.As(err)
	if !ok || e.Code != bqerr.PermissionDenied || !strings.Contains(e.Hint, "p.sales, p.mkt_*") {
		t.Errorf("Check = %v (hint %q), want PERMISSION_DENIED naming the allowed datasets", err, e.Hint)
	}
}

func TestNilAllowlistAllowsAll(t *testing.T) {
	a, err := ParseAllowlist("  ", "p")
	if err != nil || a != nil {
		t.Fatalf("ParseAllowlist(blank) = %v, %v; want nil, nil", a, err)
	}
	if a.Enabled() || !a.Allows("x", "y") || a.Check("x", "y") != nil {
		t.Error("a nil allowlist must allow everything")
	}
}

func TestAllowlistRejectsBadSpecs(t *testing.T) {
	for _, spec := range []string{",", "p.", "sales[", "ds"} {
		project := "p"
		if spec == "ds" {
			project = ""
		}
		if _, err := ParseAllowlist(spec, project); err == nil {
			t.Errorf("ParseAllowlist(%q, %q) accepted it", spec, project)
		}
	}
}
