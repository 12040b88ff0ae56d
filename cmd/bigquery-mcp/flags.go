package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// envPrefix: every flag --some-name also reads BIGQUERY_SOME_NAME.
const envPrefix = "BIGQUERY_"

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// flagSet declares every flag with its environment variable. A variable
// sets the default; a flag on the command line wins.
type flagSet struct {
	*flag.FlagSet
	getenv func(string) string
	// from records where a flag's default came from when it was not the
	// built-in one (an environment variable, or $PORT), for --help.
	from map[string]string
	// envBacked holds the flags declared with envVar.
	envBacked map[string]bool
	// secret holds flags whose values --help must never print (tokens).
	secret map[string]bool
	// group holds the --help group of each flag, and order the flags in
	// the order they were declared: --help lists them so, group by group.
	group map[string]*flagGroup
	order []string
	errs  []error
}

// A flagGroup is one heading of --help: the flags of one concern, with
// one line on when a person would touch them.
type flagGroup struct{ title, when string }

func newFlagSet(getenv func(string) string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet("bigquery-mcp", flag.ContinueOnError), getenv: getenv, from: map[string]string{}, envBacked: map[string]bool{}, secret: map[string]bool{}, group: map[string]*flagGroup{}}
	// Errors are returned, and help is printed by the caller to the stream
	// the user asked on; the flag package prints nothing itself.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

func (f *flagSet) env(name string) (string, bool) {
	v := f.getenv(envName(name))
	if unfilledPlaceholder(v) {
		return "", false
	}
	return v, v != ""
}

// unfilledPlaceholder reports a variable that an MCP Bundle host left as
// the manifest's literal "${user_config.key}": Claude Desktop passes an
// optional setting the user left blank that way instead of an empty string
// (modelcontextprotocol/mcpb#250). It means unset, as an empty value does.
func unfilledPlaceholder(v string) bool {
	return strings.HasPrefix(v, "${user_config.") && strings.HasSuffix(v, "}")
}

// kind says how flags of one type are read from the environment and
// declared on the flag set.
type kind[T any] struct {
	parse  func(string) (T, error)
	want   string // what a valid value looks like, for error messages
	define func(fs *flag.FlagSet, p *T, name string, value T, usage string)
}

var (
	stringKind   = kind[string]{func(s string) (string, error) { return s, nil }, "", (*flag.FlagSet).StringVar}
	boolKind     = kind[bool]{strconv.ParseBool, "true or false", (*flag.FlagSet).BoolVar}
	intKind      = kind[int]{strconv.Atoi, "a whole number", (*flag.FlagSet).IntVar}
	uintKind     = kind[uint]{parseUint, "a whole number", (*flag.FlagSet).UintVar}
	int64Kind    = kind[int64]{func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }, "a whole number", (*flag.FlagSet).Int64Var}
	floatKind    = kind[float64]{func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }, "a number", (*flag.FlagSet).Float64Var}
	durationKind = kind[time.Duration]{time.ParseDuration, "a duration such as 30s or 5m", (*flag.FlagSet).DurationVar}
)

func parseUint(s string) (uint, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	return uint(n), err
}

// place puts the flag name under group g in --help.
func (f *flagSet) place(g *flagGroup, name string) {
	f.group[name] = g
	f.order = append(f.order, name)
}

// envVar declares the flag name (stored in p) under group g of --help,
// with its environment variable: the variable, when set and valid,
// replaces def as the default. An invalid variable is an error that
// parseArgs reports.
func envVar[T any](f *flagSet, g *flagGroup, k kind[T], p *T, name string, def T, usage string) {
	if v, ok := f.env(name); ok {
		parsed, err := k.parse(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: want %s", envName(name), v, k.want))
		} else {
			def = parsed
			f.from[name] = envName(name)
		}
	}
	f.envBacked[name] = true
	f.place(g, name)
	k.define(f.FlagSet, p, name, def, usage)
}

// printUsage writes head and then groups in order: each group's title,
// its line on when to touch it, and its flags in the order declared, each
// with its variable and its effective default (the value the flag has when
// not given, after the environment). A flag in no group of groups comes
// last, under "Other flags", so that none is ever hidden.
func (f *flagSet) printUsage(w io.Writer, head string, groups []*flagGroup) {
	fmt.Fprint(w, head)
	listed := map[*flagGroup]bool{}
	for _, g := range groups {
		listed[g] = true
		fmt.Fprintf(w, "\n%s:\n  %s\n", g.title, g.when)
		for _, name := range f.order {
			if f.group[name] == g {
				f.printFlag(w, f.Lookup(name))
			}
		}
	}
	other := false
	f.VisitAll(func(fl *flag.Flag) {
		if g := f.group[fl.Name]; g == nil || !listed[g] {
			if !other {
				fmt.Fprint(w, "\nOther flags:\n")
				other = true
			}
			f.printFlag(w, fl)
		}
	})
}

// printFlag writes one flag: its name and type, its usage, and its
// variable and effective default.
func (f *flagSet) printFlag(w io.Writer, fl *flag.Flag) {
	typ, usage := flag.UnquoteUsage(fl)
	fmt.Fprintf(w, "  --%s", fl.Name)
	if typ != "" {
		fmt.Fprintf(w, " %s", typ)
	}
	fmt.Fprintf(w, "\n    \t%s", usage)
	if !f.envBacked[fl.Name] {
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintf(w, "\n    \tenv %s", envName(fl.Name))
	def := fl.DefValue
	if _, isString := fl.Value.(interface{ Get() any }).Get().(string); isString {
		def = strconv.Quote(def)
	}
	switch src, ok := f.from[fl.Name]; {
	case ok && f.secret[fl.Name]:
		fmt.Fprintf(w, "; set (from %s)", src)
	case ok:
		fmt.Fprintf(w, "; default %s (from %s)", def, src)
	case fl.DefValue != "" && fl.DefValue != "0" && fl.DefValue != "false":
		fmt.Fprintf(w, "; default %s", def)
	}
	fmt.Fprintln(w)
}
