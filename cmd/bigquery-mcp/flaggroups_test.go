package main

// --help groups every flag by concern, and every flag fills a config field
// named after it: a new flag has to pick its group, and a flag and its
// field cannot drift apart.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// definedFlags declares the flags as parseArgs does, with no environment.
func definedFlags() *flagSet {
	s := &settings{Config: server.Defaults(), command: "stdio"}
	fs := newFlagSet(env(nil))
	s.defineFlags(fs)
	return fs
}

// helpProblems reads --help as printed from fs and reports every flag
// that is in no group of flagGroups (listed under "Other flags") or is
// listed other than once, and every group that is empty, repeated, or
// says when to touch it in other than one line.
func helpProblems(fs *flagSet) []string {
	var b bytes.Buffer
	fs.printUsage(&b, usageHead, flagGroups)
	var problems []string
	seen := map[string]int{}
	heading := ""
	for _, line := range strings.Split(strings.TrimPrefix(b.String(), usageHead), "\n") {
		switch {
		case strings.HasPrefix(line, "  --"):
			name := strings.Fields(line)[0][2:]
			seen[name]++
			if heading == "" || heading == "Other flags:" {
				problems = append(problems, fmt.Sprintf("--%s is in no group: pass one of flagGroups to envVar (or fs.place)", name))
			}
		case line != "" && !strings.HasPrefix(line, " "):
			heading = line
		}
	}
	fs.VisitAll(func(fl *flag.Flag) {
		if n := seen[fl.Name]; n != 1 {
			problems = append(problems, fmt.Sprintf("--%s is listed %d times in --help", fl.Name, n))
		}
	})
	titles := map[string]bool{}
	for _, g := range flagGroups {
		members := 0
		for _, name := range fs.order {
			if fs.group[name] == g {
				members++
			}
		}
		switch {
		case members == 0:
			problems = append(problems, fmt.Sprintf("group %q has no flags", g.title))
		case titles[g.title]:
			problems = append(problems, fmt.Sprintf("group %q is there twice", g.title))
		case g.when == "" || strings.Contains(g.when, "\n"):
			problems = append(problems, fmt.Sprintf("group %q: say when to touch it in one line", g.title))
		}
		titles[g.title] = true
	}
	for name, n := range countOf(fs.order) {
		if n > 1 {
			problems = append(problems, fmt.Sprintf("--%s is placed in a group %d times", name, n))
		}
	}
	return problems
}

func countOf(names []string) map[string]int {
	n := map[string]int{}
	for _, name := range names {
		n[name]++
	}
	return n
}

func TestHelpGroupsEveryFlag(t *testing.T) {
	for _, p := range helpProblems(definedFlags()) {
		t.Error(p)
	}

	// A flag declared outside any group is still printed, and the check
	// above catches it.
	fs := definedFlags()
	fs.Bool("stray", false, "declared without a group")
	var b bytes.Buffer
	fs.printUsage(&b, usageHead, flagGroups)
	if !strings.Contains(b.String(), "\nOther flags:\n  --stray\n") {
		t.Errorf("a flag in no group is hidden from --help:\n%s", b.String())
	}
	if got := helpProblems(fs); len(got) != 1 || !strings.Contains(got[0], "--stray is in no group") {
		t.Errorf("problems with a stray flag = %q", got)
	}
}

// fieldTestValues are values the flags parsed from text accept (the rest
// take one derived from their default).
var fieldTestValues = map[string]string{
	"auth":        "none",
	"toolsets":    "schema",
	"apps":        "always",
	"job-labels":  "team=data",
	"client-auth": "token",
	"billing":     "editions",
	// Parsed into PricePerTiBByLocation, a map keyed by location.
	"price-per-tib-by-location": "europe-west2=7.82",
}

// TestFlagFillsFieldNamedAfterIt sets each flag alone and finds the
// fields of the parsed settings that change: one of them must be named
// after the flag, case and hyphens aside, by its own name or by its path's
// last names. --max-rows fills Config.Settings.Caps.MaxRows (its name),
// --export-dir fills Config.Export.Dir (Export.Dir), --breaker-open
// Config.Resilience.Breaker.Open, and --retry-query-attempts
// Config.Resilience.Retry[query].Attempts (a map's key counts as a name).
// No flag is excepted: a flag whose field is renamed, or a field that
// takes another flag's value, fails here.
func TestFlagFillsFieldNamedAfterIt(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("0123456789abcdef-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	values := map[string]string{"client-tokens-file": tokens}
	for name, v := range fieldTestValues {
		values[name] = v
	}

	base, err := parseArgs(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	before := fields(reflect.ValueOf(*base))
	fs := definedFlags()
	fs.VisitAll(func(fl *flag.Flag) {
		v, ok := values[fl.Name]
		if !ok {
			v = otherValue(t, fl)
		}
		s, err := parseArgs([]string{"--" + fl.Name + "=" + v}, env(nil))
		if err != nil {
			t.Errorf("--%s=%s: %v", fl.Name, v, err)
			return
		}
		after := fields(reflect.ValueOf(*s))
		var changed []string
		named := false
		for path, f := range after {
			if b, ok := before[path]; ok && b.value == f.value {
				continue
			}
			changed = append(changed, path)
			named = named || namedAfter(fl.Name, path, f.name)
		}
		for path := range before {
			if _, ok := after[path]; !ok {
				changed = append(changed, path)
			}
		}
		if !named {
			t.Errorf("--%s fills %q, none named after it: name the field after the flag", fl.Name, changed)
		}
	})
}

// namedAfter reports whether the field at path, whose own name is name,
// is named after the flag: by its name, or by the names that end its path
// (struct fields and map keys), joined.
func namedAfter(flagName, path, name string) bool {
	want := strings.ReplaceAll(flagName, "-", "")
	if strings.EqualFold(want, name) {
		return true
	}
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' || r == ']' })
	for i := range parts {
		if strings.EqualFold(want, strings.Join(parts[i:], "")) {
			return true
		}
	}
	return false
}

func TestNamedAfter(t *testing.T) {
	for _, c := range []struct {
		flag, path, name string
		want             bool
	}{
		{"max-rows", "Config.Settings.Caps.MaxRows", "MaxRows", true},
		{"export-dir", "Config.Export.Dir", "Dir", true},
		{"retry-query-attempts", "Config.Resilience.Retry[query].Attempts", "Attempts", true},
		{"job-labels", "Config.Governance.JobLabels[team]", "JobLabels", true},
		{"client-auth", "client.Auth", "Auth", true},
		// Drifts the test exists to catch.
		{"export-dir", "Config.Export.Folder", "Folder", false},
		{"max-export-bytes", "Config.Export.MaxBytes", "MaxBytes", false},
		{"breaker-open", "Config.Resilience.Breaker.OpenDuration", "OpenDuration", false},
		{"retry-query-attempts", "Config.Resilience.Retry[query].MaxAttempts", "MaxAttempts", false},
		{"state", "Config.Governance.StateURL", "StateURL", false},
	} {
		if got := namedAfter(c.flag, c.path, c.name); got != c.want {
			t.Errorf("namedAfter(%q, %q) = %v, want %v", c.flag, c.path, got, c.want)
		}
	}
}

// otherValue is a value of fl's type other than its default.
func otherValue(t *testing.T, fl *flag.Flag) string {
	switch d := fl.Value.(flag.Getter).Get().(type) {
	case bool:
		return strconv.FormatBool(!d)
	case int:
		return strconv.Itoa(d + 1)
	case uint:
		return strconv.FormatUint(uint64(d)+1, 10)
	case int64:
		return strconv.FormatInt(d+1, 10)
	case float64:
		return strconv.FormatFloat(d+1, 'g', -1, 64)
	case time.Duration:
		return (d + time.Second).String()
	case string:
		return d + "x"
	default:
		t.Fatalf("--%s: no test value for %T", fl.Name, d)
		return ""
	}
}

// field is one leaf of the settings: the name of the struct field that
// holds it, and its value as text.
type field struct{ name, value string }

// fields flattens v into its leaves by path: struct fields by name (an
// embedded struct by its type's), map entries by key, pointers and
// interfaces by what they point at. Functions are not settings.
func fields(v reflect.Value) map[string]field {
	out := map[string]field{}
	var walk func(v reflect.Value, path, name string, depth int)
	walk = func(v reflect.Value, path, name string, depth int) {
		if depth > 10 {
			out[path] = field{name, fmt.Sprint(v)}
			return
		}
		switch v.Kind() {
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(time.Time{}) {
				out[path] = field{name, fmt.Sprint(v)}
				return
			}
			for i := range v.NumField() {
				f := v.Type().Field(i)
				walk(v.Field(i), strings.TrimPrefix(path+"."+f.Name, "."), f.Name, depth+1)
			}
		case reflect.Map:
			if v.Len() == 0 {
				out[path] = field{name, "empty"}
			}
			for _, k := range v.MapKeys() {
				walk(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k), name, depth+1)
			}
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				out[path] = field{name, "nil"}
				return
			}
			walk(v.Elem(), path, name, depth+1)
		case reflect.Func:
		default:
			out[path] = field{name, fmt.Sprint(v)}
		}
	}
	walk(v, "", "", 0)
	return out
}
