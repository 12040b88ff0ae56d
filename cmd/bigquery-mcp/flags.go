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
	errs   []error
}

func newFlagSet(getenv func(string) string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet("bigquery-mcp", flag.ContinueOnError), getenv: getenv, from: map[string]string{}, envBacked: map[string]bool{}, secret: map[string]bool{}}
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

// envVar declares the flag name (stored in p) with its environment
// variable: the variable, when set and valid, replaces def as the default.
// An invalid variable is an error that parseArgs reports.
func envVar[T any](f *flagSet, k kind[T], p *T, name string, def T, usage string) {
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
	k.define(f.FlagSet, p, name, def, usage)
}

// printUsage writes head and every flag with its variable and its
// effective default: the value the flag has when not given, after the
// environment.
func (f *flagSet) printUsage(w io.Writer, head string) {
	fmt.Fprint(w, head)
	f.VisitAll(func(fl *flag.Flag) {
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
	})
}
