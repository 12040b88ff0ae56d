package governance

import "testing"

// TestConnections: a connection is allowed only when --connections lists
// it, in any of BigQuery's spellings; nothing is allowed without the flag.
func TestConnections(t *testing.T) {
	c, err := ParseConnections("us.pg, `other.EU.ai_*`, DEFAULT", "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name []string
		want bool
	}{
		{[]string{"us", "pg"}, true},
		{[]string{"p", "US", "pg"}, true},
		{[]string{"p", "eu", "pg"}, false},
		{[]string{"q", "us", "pg"}, false},
		{[]string{"other", "eu", "ai_vertex"}, true},
		{[]string{"other", "eu", "pg"}, false},
		{[]string{"DEFAULT"}, true},
		{[]string{"pg"}, false},
		{[]string{"a", "b", "c", "d"}, false},
	} {
		if got := c.Allows(tc.name, "p"); got != tc.want {
			t.Errorf("Allows(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	var none *Connections
	if none.Allows([]string{"us", "pg"}, "p") || none.Allows([]string{"DEFAULT"}, "p") {
		t.Error("no --connections allowed a connection")
	}
	if none.String() != "none" || c.String() != "p.us.pg, other.EU.ai_*, DEFAULT" {
		t.Errorf("String() = %q, %q", none.String(), c.String())
	}
	for _, bad := range []string{"pg", "a.b.c.d", "us.", "[.x.y"} {
		if _, err := ParseConnections(bad, "p"); err == nil {
			t.Errorf("ParseConnections(%q) accepted it", bad)
		}
	}
	if c, err := ParseConnections(" ", "p"); c != nil || err != nil {
		t.Errorf("ParseConnections(empty) = %v, %v", c, err)
	}
}
