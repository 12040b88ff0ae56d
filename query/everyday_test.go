package query

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// The everyday corpus (testdata/everyday.sql, issue 28): several hundred
// statements in the shapes analysts use, each run under a dataset allowlist
// naming exactly the datasets it reads. Only what docs/governance.md's rules
// refuse may be refused, execute_sql and dry_run_sql must agree, and every
// query runs on a read-only server without an allowlist.

// everydayRules are the rules that refuse a statement under an allowlist
// (docs/governance.md), as the corpus' "refused:" headers name them.
var everydayRules = []string{
	"script",                    // more than one statement (temporary functions and one query are one)
	"call",                      // CALL
	"execute-immediate",         // EXECUTE IMMEDIATE
	"connection",                // WITH CONNECTION, EXTERNAL_QUERY, connection_id, OBJ.MAKE_REF, remote models and functions, external tables
	"region-information-schema", // region- and project-level INFORMATION_SCHEMA
	"export-data",               // EXPORT DATA outside the --export-gcs prefix (gs://acme-exports/mcp in the test)
	"procedure-scripting",       // CREATE PROCEDURE whose body scripts beyond DECLARE and SET, or sets a system variable but @@time_zone
	"external-files",            // CREATE EXTERNAL TABLE, LOAD DATA: files outside BigQuery's datasets
	"kms-key",                   // a Cloud KMS key outside --kms-keys (none in the test)
	"reach-out",                 // another resource outside BigQuery's datasets: Earth Engine rasters, Vertex AI's model registry
	"statement-kind",            // a statement kind the reader does not check (reservations, ALTER PROJECT)
}

// everydayRuleMarks are words of the refusal each rule gives (one of them
// must be in execute_sql's error), so that a statement is refused by the
// rule its header names and not by another. The read-only guard answers
// first for scripts, CALL and EXECUTE IMMEDIATE that need no
// --allow-writes.
var everydayRuleMarks = map[string][]string{
	"script":                    {"script"},
	"call":                      {"CALL runs", "a procedure runs statements"},
	"execute-immediate":         {"EXECUTE"},
	"connection":                {"connection", "external table reads files", "LOAD DATA reads files"},
	"region-information-schema": {"INFORMATION_SCHEMA"},
	"export-data":               {"exports to"},
	"procedure-scripting":       {"procedure's body", "is not one this server can check"},
	"external-files":            {"reads files outside", "imported model"},
	"kms-key":                   {"Cloud KMS key"},
	"reach-out":                 {"Earth Engine", "Vertex AI"},
	"statement-kind":            {"is not one this server can check"},
}

// refusedBy reports whether err is a refusal by rule, as its marks say.
func refusedBy(err error, rule string) bool {
	marks, ok := everydayRuleMarks[rule]
	if !ok {
		return true // a rule without marks is held to its code alone
	}
	for _, m := range marks {
		if strings.Contains(err.Error(), m) {
			return true
		}
	}
	return false
}

// everydayCase is one statement of the corpus.
type everydayCase struct {
	line    int // of the statement's first header line
	model   string
	reads   []string // dataset or project.dataset
	writes  bool
	refused string
	// planType and planTables are the "plan:" header; planTables nil with
	// hasPlan false means the tables are read from the text.
	hasPlan    bool
	planType   string
	planTables []string
	// graphs are the "graph:" headers: property graphs the fake serves
	// from INFORMATION_SCHEMA.PROPERTY_GRAPHS for the allowlist's lookup.
	graphs []everydayGraph
	sql    string
}

// everydayGraph is a "graph: ds.g = ds.t1, ds.t2" header: the graph
// dataset.name (or project.dataset.name) and the tables it is built on,
// read as its node tables (project p unless named).
type everydayGraph struct {
	name   string
	tables []string
}

// qualified is name with the project p when it has none.
func qualified(name string) string {
	if strings.Count(name, ".") < 2 {
		return "p." + name
	}
	return name
}

// short is the statement's first 100 characters on one line.
func (c everydayCase) short() string {
	s := strings.Join(strings.Fields(c.sql), " ")
	if r := []rune(s); len(r) > 100 {
		s = string(r[:100])
	}
	return s
}

// readEverydayCorpus parses the corpus: blocks separated by a line holding
// only ";;", each made of header comments and one statement (a preamble of
// comments alone may come first).
func readEverydayCorpus(t *testing.T, path string) []everydayCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, r := range everydayRules {
		known[r] = true
	}
	var cases []everydayCase
	lines := strings.Split(string(data), "\n")
	start := 0
	for i := 0; i <= len(lines); i++ {
		if i < len(lines) && strings.TrimSpace(lines[i]) != ";;" {
			continue
		}
		block := lines[start:i]
		blockLine := start + 1
		start = i + 1
		c := everydayCase{line: blockLine}
		sawReads := false
		var body []string
		for j, l := range block {
			trimmed := strings.TrimSpace(l)
			if body == nil && (trimmed == "" || strings.HasPrefix(trimmed, "--")) {
				h := strings.TrimSpace(strings.TrimPrefix(trimmed, "--"))
				switch {
				case strings.HasPrefix(h, "model:"):
					c.model = strings.TrimSpace(strings.TrimPrefix(h, "model:"))
					c.line = blockLine + j
				case strings.HasPrefix(h, "reads:"):
					sawReads = true
					for _, d := range strings.Split(strings.TrimPrefix(h, "reads:"), ",") {
						if d = strings.TrimSpace(d); d != "" {
							c.reads = append(c.reads, d)
						}
					}
				case h == "writes":
					c.writes = true
				case strings.HasPrefix(h, "refused:"):
					c.refused = strings.TrimSpace(strings.TrimPrefix(h, "refused:"))
				case strings.HasPrefix(h, "graph:"):
					name, tables, ok := strings.Cut(strings.TrimPrefix(h, "graph:"), "=")
					g := everydayGraph{name: qualified(strings.TrimSpace(name))}
					for _, tb := range strings.Split(tables, ",") {
						if tb = strings.TrimSpace(tb); tb != "" {
							g.tables = append(g.tables, qualified(tb))
						}
					}
					if !ok || len(g.tables) == 0 {
						t.Fatalf("%s:%d: a graph header is graph: ds.g = ds.t1, ds.t2", path, blockLine+j)
					}
					c.graphs = append(c.graphs, g)
				case strings.HasPrefix(h, "plan:"):
					f := strings.Fields(strings.TrimPrefix(h, "plan:"))
					if len(f) == 0 {
						t.Fatalf("%s:%d: a plan header names no statement type", path, blockLine+j)
					}
					c.hasPlan, c.planType, c.planTables = true, f[0], f[1:]
				}
				continue
			}
			body = append(body, l)
		}
		c.sql = strings.TrimSpace(strings.Join(body, "\n"))
		if c.sql == "" {
			if len(cases) == 0 && c.model == "" && i < len(lines) {
				continue // the file's preamble
			}
			if i == len(lines) && c.model == "" && !sawReads {
				continue // what follows the last ";;"
			}
			t.Fatalf("%s:%d: a block without a statement", path, c.line)
		}
		if c.model == "" || !sawReads {
			t.Fatalf("%s:%d: every statement needs a model: and a reads: header", path, c.line)
		}
		if c.refused != "" && !known[c.refused] {
			t.Fatalf("%s:%d: refused: %q is not one of %v", path, c.line, c.refused, everydayRules)
		}
		cases = append(cases, c)
	}
	return cases
}

var everydayLeadingWord = regexp.MustCompile(`^[A-Za-z_]+`)

// leadingWords returns the statement's first n words, upper-case, after
// comments and opening parentheses; a statement that opens with '(' gets
// "(" as its first word.
func leadingWords(sql string, n int) []string {
	var words []string
	s := sql
	for len(words) < n {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case s == "":
			return words
		case strings.HasPrefix(s, "--") || strings.HasPrefix(s, "#"):
			if k := strings.IndexByte(s, '\n'); k >= 0 {
				s = s[k+1:]
			} else {
				s = ""
			}
		case strings.HasPrefix(s, "/*"):
			if k := strings.Index(s, "*/"); k >= 0 {
				s = s[k+2:]
			} else {
				s = ""
			}
		case s[0] == '(':
			if len(words) == 0 {
				words = append(words, "(")
			}
			s = s[1:]
		default:
			w := everydayLeadingWord.FindString(s)
			if w == "" {
				return words
			}
			words = append(words, strings.ToUpper(w))
			s = s[len(w):]
		}
	}
	return words
}

// kindWords are the words of a DDL statement's kind (CREATE [OR REPLACE]
// MATERIALIZED VIEW …).
var kindWords = map[string]bool{
	"TABLE": true, "FUNCTION": true, "EXTERNAL": true, "SNAPSHOT": true, "VIEW": true, "MATERIALIZED": true,
	"AGGREGATE": true, "PROCEDURE": true, "MODEL": true, "SCHEMA": true, "SEARCH": true, "VECTOR": true,
	"INDEX": true, "ROW": true, "ACCESS": true, "POLICY": true, "POLICIES": true, "ALL": true, "PROPERTY": true,
	"GRAPH": true,
}

var asQuery = regexp.MustCompile(`(?is)\bAS\s*(\(|SELECT\b|WITH\b|FROM\b)`)

// everydayStatementType is the statementType BigQuery's dry run gives the
// case, unless its plan header says otherwise.
func everydayStatementType(c everydayCase) (string, error) {
	if c.hasPlan {
		return c.planType, nil
	}
	switch c.refused {
	case "script", "call", "execute-immediate":
		return "SCRIPT", nil
	}
	w := leadingWords(c.sql, 12)
	if len(w) == 0 {
		return "", fmt.Errorf("no leading keyword")
	}
	switch w[0] {
	case "(", "SELECT", "WITH", "FROM", "GRAPH":
		return "SELECT", nil
	case "INSERT", "UPDATE", "DELETE", "MERGE", "GRANT", "REVOKE":
		return w[0], nil
	case "TRUNCATE":
		return "TRUNCATE_TABLE", nil
	case "LOAD":
		return "LOAD_DATA", nil
	case "EXPORT":
		if len(w) > 1 {
			return "EXPORT_" + w[1], nil
		}
	case "CREATE", "DROP", "ALTER":
		if w[0] == "CREATE" && len(w) > 2 && (w[1] == "TEMP" || w[1] == "TEMPORARY") && (w[2] == "FUNCTION" || w[2] == "AGGREGATE") {
			// Temporary functions and the one query after them: BigQuery
			// runs it as a query.
			return "SELECT", nil
		}
		kind := []string{w[0]}
		for _, x := range w[1:] {
			if x == "OR" || x == "REPLACE" || x == "TEMP" || x == "TEMPORARY" {
				continue
			}
			if !kindWords[x] {
				break
			}
			kind = append(kind, x)
		}
		st := strings.Join(kind, "_")
		switch st {
		case "CREATE_TABLE":
			if asQuery.MatchString(c.sql) {
				st = "CREATE_TABLE_AS_SELECT"
			}
		case "CREATE_AGGREGATE_FUNCTION":
			st = "CREATE_FUNCTION"
		}
		if len(kind) > 1 {
			return st, nil
		}
	}
	return "", fmt.Errorf("no statementType for a statement starting %v: give it a plan: header", w)
}

// everydayTables are the tables of the reads datasets the text names, as a
// dry run lists them: project-qualified, a wildcard table as one table it
// matches, routines (a path right before '(') and INFORMATION_SCHEMA left
// out; a graph's tables in place of the graph.
func everydayTables(c everydayCase) []string {
	if c.hasPlan {
		return c.planTables
	}
	if len(c.graphs) == 0 {
		return everydayTextTables(c)
	}
	graphs := map[string]bool{}
	var out []string
	for _, g := range c.graphs {
		graphs[g.name] = true
		out = append(out, g.tables...)
	}
	for _, t := range everydayTextTables(c) {
		if !graphs[t] && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// everydayTextTables are the tables of the reads datasets the text names.
func everydayTextTables(c everydayCase) []string {
	text := strings.ReplaceAll(c.sql, "`", "")
	seen := map[string]bool{}
	var out []string
	for _, d := range c.reads {
		project, prefix := "p", `(?:p\.)?`+regexp.QuoteMeta(d)
		if k := strings.LastIndex(d, "."); k >= 0 {
			project, prefix = d[:k], regexp.QuoteMeta(d)
			d = d[k+1:]
		}
		re := regexp.MustCompile(`(?:^|[^\w.\-])` + prefix + `\.([A-Za-z_]\w*\*?|\*)(\()?`)
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			name := m[1]
			if m[2] != "" || strings.EqualFold(name, "INFORMATION_SCHEMA") {
				continue
			}
			if strings.HasSuffix(name, "*") {
				name = strings.TrimSuffix(name, "*") + "20240101"
			}
			full := project + "." + d + "." + name
			if !seen[full] {
				seen[full] = true
				out = append(out, full)
			}
		}
	}
	return out
}

// everydayService is a service whose fake BigQuery answers the corpus' dry
// runs; allow non-empty sets the dataset allowlist.
func everydayService(t *testing.T, plans map[string]plan, allow string, writes bool, datasets []string) (*Service, *planBigQuery) {
	t.Helper()
	fake := newPlanBigQuery(t, plans)
	var a *governance.Allowlist
	if allow != "" {
		var err error
		if a, err = governance.ParseAllowlist(allow, "p"); err != nil {
			t.Fatal(err)
		}
	}
	s := newTestService(t, fake, func(c *Config) {
		c.AllowWrites = writes
		c.ExportGCS = "gs://acme-exports/mcp"
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{}), nil)
		if a != nil {
			c.Datasets = a
			c.Catalog = fakeCatalog{types: map[string]string{}, datasets: datasets}
		}
	})
	return s, fake
}

// everydayVerdict is what one tool answered.
type everydayVerdict struct {
	err          error
	wouldExecute bool // dry_run_sql
	note         string
}

func (v everydayVerdict) String() string {
	if v.err != nil {
		return "refused " + v.err.Error()
	}
	if v.note != "" {
		return fmt.Sprintf("accepted (wouldExecute %v: %s)", v.wouldExecute, v.note)
	}
	return "accepted"
}

func (v everydayVerdict) code() bqerr.Code {
	if e, ok := bqerr.As(v.err); ok {
		return e.Code
	}
	return ""
}

// runBoth calls execute_sql and then dry_run_sql, and counts the jobs.
func runBoth(s *Service, fake *planBigQuery, sql string) (exec, dry everydayVerdict, jobs int) {
	ctx := context.Background()
	_, err := s.Execute(ctx, ExecuteInput{SQL: sql})
	exec = everydayVerdict{err: err}
	out, err := s.DryRun(ctx, DryRunInput{SQL: sql})
	dry = everydayVerdict{err: err}
	if err == nil {
		dry.wouldExecute, dry.note = out.WouldExecute, out.Note
	}
	_, jobs, _ = fake.counts()
	return exec, dry, jobs
}

// TestEverydaySQL runs the everyday corpus (issue 28).
func TestEverydaySQL(t *testing.T) {
	cases := readEverydayCorpus(t, "testdata/everyday.sql")
	plans := map[string]plan{}
	datasetSet := map[string]bool{}
	perRule := map[string]int{}
	writes := 0
	for _, c := range cases {
		st, err := everydayStatementType(c)
		if err != nil {
			t.Fatalf("testdata/everyday.sql:%d: %v", c.line, err)
		}
		if _, dup := plans[c.sql]; dup {
			t.Fatalf("testdata/everyday.sql:%d: the statement appears twice", c.line)
		}
		plans[c.sql] = plan{statementType: st, tables: everydayTables(c), bytes: 100}
		for _, d := range c.reads {
			if !strings.Contains(d, ".") {
				datasetSet[d] = true
			}
		}
		perRule[c.refused]++
		if c.writes {
			writes++
		}
	}
	refused := len(cases) - perRule[""]
	if len(cases) < 600 || refused < 60 {
		t.Fatalf("the corpus has %d statements, %d of them refused; want at least 600 and 60", len(cases), refused)
	}
	// A dataset no statement names: the allowlist of a statement that
	// reads none, so that the allowlist is still on.
	const unused = "everyday_unused_ds"
	datasets := []string{unused}
	for d := range datasetSet {
		datasets = append(datasets, d)
	}
	sort.Strings(datasets)

	for _, c := range cases {
		t.Run(fmt.Sprintf("L%04d", c.line), func(t *testing.T) {
			allow := strings.Join(c.reads, ",")
			if allow == "" {
				allow = unused
			}
			what := "allowed"
			if c.refused != "" {
				what = "refused: " + c.refused
			}
			fail := func(setting string, exec, dry everydayVerdict, jobs int, problem string) {
				t.Errorf("everyday.sql:%d [%s] %s\n  %s: %s\n  execute_sql: %s\n  dry_run_sql: %s\n  jobs: %d",
					c.line, what, c.short(), setting, problem, exec, dry, jobs)
			}

			// Under an allowlist of exactly the datasets it reads.
			s, fake := everydayService(t, plans, allow, c.writes, datasets)
			for _, g := range c.graphs {
				addGraph(fake, g.name, graphDef(t, g.name, g.tables))
			}
			setting := fmt.Sprintf("--datasets %s", allow)
			if c.writes {
				setting += " --allow-writes"
			}
			exec, dry, jobs := runBoth(s, fake, c.sql)
			if c.refused != "" {
				codes := map[bqerr.Code]bool{bqerr.PermissionDenied: true}
				if !c.writes {
					codes[bqerr.InvalidArgument] = true // the read-only guard
				}
				switch {
				case exec.err == nil && dry.err == nil:
					fail(setting, exec, dry, jobs, "accepted by both tools, want refused ("+c.refused+")")
				case exec.err == nil || dry.err == nil:
					fail(setting, exec, dry, jobs, "execute_sql and dry_run_sql disagree")
				case !codes[exec.code()] || !codes[dry.code()]:
					fail(setting, exec, dry, jobs, "refused with the wrong code")
				case jobs != 0:
					fail(setting, exec, dry, jobs, "a refused statement ran a job")
				case !refusedBy(exec.err, c.refused):
					fail(setting, exec, dry, jobs, "refused by another rule than "+c.refused)
				}
			} else {
				switch {
				case exec.err != nil && dry.err != nil:
					fail(setting, exec, dry, jobs, "refused by both tools, want allowed")
				case exec.err != nil || dry.err != nil || !dry.wouldExecute:
					fail(setting, exec, dry, jobs, "execute_sql and dry_run_sql disagree")
				case jobs != 1:
					fail(setting, exec, dry, jobs, "want exactly one job")
				}
			}

			switch {
			case !c.writes && c.refused == "":
				// A query runs on a read-only server without an
				// allowlist.
				s, fake := everydayService(t, plans, "", false, nil)
				exec, dry, jobs := runBoth(s, fake, c.sql)
				setting := "read-only, no allowlist"
				switch {
				case fake.graphLookups() != 0:
					fail(setting, exec, dry, jobs, "a graph was looked up without an allowlist")
				case exec.err != nil && (dry.err != nil || !dry.wouldExecute):
					fail(setting, exec, dry, jobs, "refused by both tools, want allowed")
				case exec.err != nil || dry.err != nil || !dry.wouldExecute:
					fail(setting, exec, dry, jobs, "execute_sql and dry_run_sql disagree")
				case jobs != 1:
					fail(setting, exec, dry, jobs, "want exactly one job")
				}
			case c.writes:
				// What needs --allow-writes is refused on a read-only
				// server, and dry_run_sql says so.
				s, fake := everydayService(t, plans, "", false, nil)
				exec, dry, jobs := runBoth(s, fake, c.sql)
				setting := "read-only, no allowlist"
				switch {
				case exec.err == nil && dry.err == nil && dry.wouldExecute:
					fail(setting, exec, dry, jobs, "accepted by both tools, want refused (it writes)")
				case exec.err == nil || dry.err != nil || dry.wouldExecute:
					fail(setting, exec, dry, jobs, "execute_sql and dry_run_sql disagree")
				case exec.code() != bqerr.InvalidArgument:
					fail(setting, exec, dry, jobs, "refused with the wrong code")
				case jobs != 0:
					fail(setting, exec, dry, jobs, "a refused statement ran a job")
				}
			}
		})
	}

	var rules []string
	for _, r := range everydayRules {
		rules = append(rules, fmt.Sprintf("%s %d", r, perRule[r]))
	}
	t.Logf("everyday corpus: %d statements, %d allowed, %d refused (%s); %d need --allow-writes",
		len(cases), perRule[""], refused, strings.Join(rules, ", "), writes)
}
