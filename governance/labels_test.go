package governance

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseLabels(t *testing.T) {
	long := strings.Repeat("a", MaxLabelLength)
	many := func(n int) string {
		var parts []string
		for i := range n {
			parts = append(parts, fmt.Sprintf("k%d=v", i))
		}
		return strings.Join(parts, ",")
	}
	cases := []struct {
		spec string
		want map[string]string
		// count, when set, is how many labels a valid spec gives.
		count int
		err   string // part of the error; "" when valid
	}{
		{spec: "", want: nil},
		{spec: "  ", want: nil},
		{spec: "team=data", want: map[string]string{"team": "data"}},
		{spec: " team = data , env=prod,", want: map[string]string{"team": "data", "env": "prod"}},
		{spec: "cost-center=cc_42", want: map[string]string{"cost-center": "cc_42"}},
		{spec: "empty=", want: map[string]string{"empty": ""}},
		{spec: "équipe=données", want: map[string]string{"équipe": "données"}},
		{spec: "部署=営業", want: map[string]string{"部署": "営業"}},
		{spec: long + "=" + long, want: map[string]string{long: long}},
		{spec: many(MaxLabels - ServerLabels), count: MaxLabels - ServerLabels},

		{spec: ",", err: "lists no label"},
		{spec: "team", err: "not key=value"},
		{spec: "=data", err: "key is empty"},
		{spec: "Team=data", err: "must start with a lowercase letter"},
		{spec: "1team=data", err: "must start with a lowercase letter"},
		{spec: "_team=data", err: "must start with a lowercase letter"},
		{spec: "team=Data", err: "lowercase letters"},
		{spec: "team=a.b", err: "lowercase letters"},
		{spec: "te am=data", err: "lowercase letters"},
		{spec: "team=data,team=ops", err: "given twice"},
		{spec: "mcp_tool=x", err: "set by the server"},
		{spec: "mcp_=x", err: "set by the server"},
		{spec: long + "a=x", err: "more than 63"},
		{spec: "k=" + long + "a", err: "more than 63"},
		{spec: many(MaxLabels - ServerLabels + 1), err: "at most 61"},
	}
	for _, c := range cases {
		got, err := ParseLabels(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseLabels(%.40q) error %v, want one containing %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseLabels(%.40q): %v", c.spec, err)
			continue
		}
		if c.count > 0 {
			if len(got) != c.count {
				t.Errorf("ParseLabels(%.40q) gave %d labels, want %d", c.spec, len(got), c.count)
			}
			continue
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("ParseLabels(%.40q) = %v, want %v", c.spec, got, c.want)
		}
	}
}

func TestSanitizeLabelValue(t *testing.T) {
	cases := map[string]string{
		"claude-code":            "claude-code",
		"Claude Code":            "claude_code",
		"VS Code / Copilot 1.2":  "vs_code___copilot_1_2",
		"":                       "",
		"Ünïcödé":                "ünïcödé",
		"クライアント":                 "クライアント",
		"mcp-inspector@0.16":     "mcp-inspector_0_16",
		"tab\tnew\nline":         "tab_new_line",
		"bad\xffutf8":            "bad_utf8",
		strings.Repeat("A", 100): strings.Repeat("a", MaxLabelLength),
		strings.Repeat("é", 100): strings.Repeat("é", MaxLabelLength),
	}
	for in, want := range cases {
		got := SanitizeLabelValue(in)
		if got != want {
			t.Errorf("SanitizeLabelValue(%q) = %q, want %q", in, got, want)
		}
		// Whatever came in, BigQuery accepts what goes out.
		if err := checkLabelValue(got); err != nil {
			t.Errorf("SanitizeLabelValue(%q) = %q, not a valid value: %v", in, got, err)
		}
		if utf8.RuneCountInString(got) > MaxLabelLength {
			t.Errorf("SanitizeLabelValue(%q) too long", in)
		}
	}
}

func TestJobLabelsContext(t *testing.T) {
	ctx := context.Background()
	if got := JobLabels(ctx); got != nil {
		t.Errorf("JobLabels of a bare context = %v, want nil", got)
	}
	labels := map[string]string{"mcp_tool": "execute_sql"}
	got := JobLabels(WithJobLabels(ctx, labels))
	if !maps.Equal(got, labels) {
		t.Errorf("JobLabels = %v, want %v", got, labels)
	}
}
