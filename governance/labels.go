package governance

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Job labels: every job the server starts carries mcp_server, mcp_tool and
// (when the client named itself) mcp_client, plus the labels configured with
// --job-labels, so billing exports and INFORMATION_SCHEMA.JOBS can split
// cost by tool, client and whatever the team labels a deployment with.

// Label limits, from BigQuery's label requirements.
const (
	// MaxLabelLength is the longest key or value, in characters.
	MaxLabelLength = 63
	// MaxLabels is how many labels one job may carry.
	MaxLabels = 64
	// ReservedLabelPrefix starts the keys this server sets itself.
	ReservedLabelPrefix = "mcp_"
	// ServerLabels is how many labels the server adds to every job
	// (mcp_server, mcp_tool, mcp_client): configured labels get the rest.
	ServerLabels = 3
)

// ParseLabels reads --job-labels: comma-separated key=value pairs, each
// checked against BigQuery's label rules, so a mistake stops the server at
// start-up rather than failing every job. Keys starting with mcp_ are the
// server's own and refused. An empty spec returns nil.
func ParseLabels(spec string) (map[string]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	labels := map[string]string{}
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, "=")
		if !ok {
			return nil, fmt.Errorf("job-labels: %q is not key=value", entry)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if err := checkLabelKey(k); err != nil {
			return nil, fmt.Errorf("job-labels: %w", err)
		}
		if strings.HasPrefix(k, ReservedLabelPrefix) {
			return nil, fmt.Errorf("job-labels: key %q: keys starting %q are set by the server", k, ReservedLabelPrefix)
		}
		if err := checkLabelValue(v); err != nil {
			return nil, fmt.Errorf("job-labels: key %q: %w", k, err)
		}
		if _, dup := labels[k]; dup {
			return nil, fmt.Errorf("job-labels: key %q is given twice", k)
		}
		labels[k] = v
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("job-labels: %q lists no label", spec)
	}
	if len(labels) > MaxLabels-ServerLabels {
		return nil, fmt.Errorf("job-labels: %d labels; a job carries at most %d and the server sets %d, so at most %d may be configured",
			len(labels), MaxLabels, ServerLabels, MaxLabels-ServerLabels)
	}
	return labels, nil
}

// labelLetter reports whether r may start a key: a lowercase letter or a
// letter without case (international characters such as CJK).
func labelLetter(r rune) bool {
	return unicode.In(r, unicode.Ll, unicode.Lo)
}

// labelChar reports whether r may appear in a key or value.
func labelChar(r rune) bool {
	return labelLetter(r) || unicode.IsNumber(r) || r == '_' || r == '-'
}

func checkLabelKey(k string) error {
	if k == "" {
		return fmt.Errorf("a label key is empty")
	}
	if r, _ := utf8.DecodeRuneInString(k); !labelLetter(r) {
		return fmt.Errorf("key %q must start with a lowercase letter", k)
	}
	return checkLabelText("key", k)
}

func checkLabelValue(v string) error { return checkLabelText("value", v) }

func checkLabelText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s %q is not UTF-8", what, s)
	}
	if n := utf8.RuneCountInString(s); n > MaxLabelLength {
		return fmt.Errorf("%s %q has %d characters, more than %d", what, s, n, MaxLabelLength)
	}
	for _, r := range s {
		if !labelChar(r) {
			return fmt.Errorf("%s %q may hold only lowercase letters, digits, '_' and '-' (not %q)", what, s, r)
		}
	}
	return nil
}

// SanitizeLabelValue turns any text (a client's name, say "Claude Code")
// into a valid label value: lowercased, every character a label may not
// hold replaced by '_', cut to 63 characters.
func SanitizeLabelValue(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.ToLower(s) {
		if n == MaxLabelLength {
			break
		}
		if !labelChar(r) {
			r = '_'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

type labelsKey struct{}

// WithJobLabels returns ctx carrying the labels every job started under it
// gets. The map is shared, never copied: nobody may change it once stored.
func WithJobLabels(ctx context.Context, labels map[string]string) context.Context {
	return context.WithValue(ctx, labelsKey{}, labels)
}

// JobLabels returns the labels stored by WithJobLabels, or nil. The map is
// read-only.
func JobLabels(ctx context.Context) map[string]string {
	labels, _ := ctx.Value(labelsKey{}).(map[string]string)
	return labels
}
