package integration_test

// ZetaSQL as the check on sqltext's inventory (issue 28): the reader keeps
// one inventory of GoogleSQL's table-valued, model-taking and
// connection-taking functions (sqltext/inventory.go) and of the statement
// kinds whose object positions it knows (sqltext/kinds.go); whatever it has
// not been taught must be unplaced. This test holds both to what ZetaSQL,
// linked here through go-zetasql, knows:
//
//   - functions: every built-in function of ZetaSQL's catalog (all language
//     features on) that takes a relation, a model, a connection or a
//     descriptor, or that is table-valued, and every name of BigQuery's own
//     inventory written out below, is called in the positions it takes with
//     each kind of object argument GoogleSQL's grammar has (TABLE x, MODEL x,
//     CONNECTION x, a subquery, DESCRIPTOR(…), connection_id => …): the
//     reader either places every object the call names or refuses the
//     statement; made-up names, and ZetaSQL's other built-in functions
//     called as a from-item, are refused;
//   - statement kinds: every statement node kind go-zetasql's parse tree has
//     is mapped below to examples; ZetaSQL must parse each as that kind
//     (what its grammar, older than BigQuery's, cannot parse is counted), and
//     the reader either names every table, model, routine, dataset and
//     connection ZetaSQL's tree names or refuses the statement.
//
// Run it alone with
//
//	CGO_ENABLED=1 CC=clang CXX=clang++ go test -count=1 -run TestInventoryAgainstZetaSQL .

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	zetasql "github.com/goccy/go-zetasql"
	zast "github.com/goccy/go-zetasql/ast"
	"github.com/goccy/go-zetasql/types"

	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

var (
	invLangOnce sync.Once
	invLang     *zetasql.LanguageOptions
	invOpts     *zetasql.ParserOptions
)

// invLanguage is ZetaSQL with every language feature and statement kind on
// (as the oracle test's parser options, of which it is a copy so that each
// test stands alone). go-zetasql's SetSupportedGenericEntityTypes crashes,
// so CREATE/ALTER/DROP of generic entities (RESERVATION, CAPACITY…) do not
// parse.
func invLanguage() (*zetasql.LanguageOptions, *zetasql.ParserOptions) {
	invLangOnce.Do(func() {
		invLang = zetasql.NewLanguageOptions()
		invLang.EnableMaximumLanguageFeaturesForDevelopment()
		invLang.SetSupportsAllStatementKinds()
		_ = invLang.EnableReservableKeyword("QUALIFY", true)
		invOpts = zetasql.NewParserOptions()
		invOpts.SetLanguageOptions(invLang)
	})
	return invLang, invOpts
}

// invParse is ZetaSQL's reading of one text.
type invParse struct {
	// err is ZetaSQL's syntax error, or why go-zetasql could not hand the
	// tree over.
	err error
	// unrepresentable is set when ZetaSQL parsed the text but go-zetasql
	// hands a statement of it over as nil (it has no Go node for START
	// BATCH).
	unrepresentable bool
	// kinds are the statement kinds anywhere in the tree.
	kinds []string
	// names are the paths the oracle's walk keeps, and every CONNECTION
	// clause's path.
	names []zetaName
}

// invZetaParse parses sql as a script with every feature on.
func invZetaParse(sql string) (p invParse) {
	_, opts := invLanguage()
	script, err := zetasql.ParseScript(sql, opts, zetasql.ErrorMessageOneLine)
	if err != nil {
		p.err = err
		return p
	}
	defer func() {
		if r := recover(); r != nil {
			p = invParse{err: fmt.Errorf("go-zetasql cannot walk the tree: %v", r), unrepresentable: true}
		}
	}()
	var top []zast.Node
	if s, ok := script.(*zast.ScriptBaseNode); ok {
		list := s.StatementListNode()
		for i := 0; list != nil && i < list.NumChildren(); i++ {
			c := list.Child(i)
			if c == nil {
				p.unrepresentable = true
				p.err = fmt.Errorf("go-zetasql hands statement %d over as nil (a node kind it has no Go type for)", i+1)
				return p
			}
			top = append(top, c)
		}
	} else {
		top = append(top, script)
	}
	for _, st := range top {
		_ = zast.Walk(st, func(n zast.Node) error {
			if n == nil {
				return nil
			}
			if isStatementKindName(n.Kind().String()) {
				p.kinds = append(p.kinds, n.Kind().String())
			}
			if c, ok := n.(*zast.ConnectionClauseNode); ok && c.ConnectionPath() != nil {
				off := -1
				if r := c.ConnectionPath().ParseLocationRange(); r != nil {
					off = r.Start().ByteOffset()
				}
				p.names = append(p.names, zetaName{Kind: sqltext.Connection, Path: pathParts(c.ConnectionPath()), Where: "CONNECTION clause", Offset: off})
			}
			return nil
		})
		w := &zetaWalker{}
		w.push()
		w.walk(st, false)
		for _, n := range w.names {
			if n.keep() {
				p.names = append(p.names, n)
			}
		}
	}
	return p
}

// statementKindNames are go-zetasql's statement node kinds, filled by
// zetaStatementKinds; isStatementKindName is only used after it.
var statementKindNames = map[string]bool{}

func isStatementKindName(k string) bool { return statementKindNames[k] }

// invOutcome is how the reader took one text, compared with ZetaSQL.
type invOutcome struct {
	text *sqltext.Text
	// unplaced is set when a statement of the reader's has something
	// Unplaced, or the text is incomplete.
	unplaced bool
	// problems are the names the reader neither placed nor refused.
	problems []string
	// checked counts the names compared with a statement that is not
	// unplaced.
	checked int
}

// invCompare reads sql with the reader and checks that every name in names
// (ZetaSQL's, and those a probe puts in itself, with Offset -1 for "the
// first statement") is among the objects of the reader's statement that
// holds it, unless that statement is unplaced.
func invCompare(sql string, names []zetaName) invOutcome {
	var o invOutcome
	o.text = sqltext.Parse(sql)
	o.unplaced = o.text.Incomplete != ""
	for _, st := range o.text.Statements {
		if len(st.Unplaced) > 0 {
			o.unplaced = true
		}
	}
	if o.text.Incomplete != "" {
		return o
	}
	merged := len(o.text.Statements) == 1 && o.text.Statements[0].TempFunctions > 0
	seen := map[string]bool{}
	for _, n := range names {
		i := 0
		if n.Offset >= 0 {
			i = statementAt(o.text.Statements, n.Offset)
		}
		if merged && i >= 0 {
			i = 0
		}
		var why string
		switch {
		case i < 0 || i >= len(o.text.Statements):
			why = fmt.Sprintf("ZetaSQL names %s, at byte %d, outside every statement the reader sees", n, n.Offset)
		case len(o.text.Statements[i].Unplaced) > 0:
			continue
		default:
			st := o.text.Statements[i]
			o.checked++
			if c := covered(st, n); c != "" {
				why = fmt.Sprintf("%s; the reader's statement %d (%s, nothing unplaced) %s; it names %s", n, i+1, st.Kind, c, describeObjects(st))
			}
		}
		if why != "" && !seen[why] {
			seen[why] = true
			o.problems = append(o.problems, why)
		}
	}
	return o
}

func TestInventoryAgainstZetaSQL(t *testing.T) {
	kinds := zetaStatementKinds(t)
	fs := checkFunctionInventory(t)
	ks := checkStatementKinds(t, kinds)
	t.Logf("sqltext inventory against ZetaSQL: functions: ZetaSQL's catalog has %d built-in functions, %d of them table-valued or taking a table, model, connection or descriptor; "+
		"%d function names probed (%d of BigQuery's inventory, %d made up, %d persistent, %d of ZetaSQL's catalog) in %d calls, ZetaSQL parsed %d; "+
		"the reader knows %d names and refuses %d; "+
		"statement kinds: go-zetasql has %d, the table covers %d with %d examples; ZetaSQL parsed %d (%d not, %d it parses but go-zetasql cannot hand over); "+
		"of the parsed, the reader knows %d and leaves %d unplaced; "+
		"names compared where the reader refuses nothing: %d in calls, %d in statements; "+
		"%d calls and %d statements in which the reader missed a name ZetaSQL or the probe holds",
		fs.catalogFunctions, len(fs.objectFunctions),
		fs.names, fs.bigQueryNames, fs.madeUpNames, fs.persistentNames, fs.catalogNames, fs.calls, fs.parsed,
		fs.known, fs.refused,
		len(kinds), ks.covered, ks.examples, ks.parsed, ks.notParsed, ks.unrepresentable,
		ks.known, ks.unplaced,
		fs.checked, ks.checked,
		fs.misses, ks.misses)
}

// ---- Functions -------------------------------------------------------------

// bigQueryTableFunctions are BigQuery's table-valued functions, from its
// function reference (BigQuery ML, generative AI, change history, time
// series, vector search, object tables, federated queries). Kept here
// independently of sqltext's inventory on purpose: a name here that the
// reader does not know must be refused, never read as if it were known.
var bigQueryTableFunctions = strings.Fields(`
	APPENDS CHANGES GAP_FILL VECTOR_SEARCH EXTERNAL_QUERY EXTERNAL_OBJECT_TRANSFORM RANGE_SESSIONIZE
	VECTOR_INDEX.STATISTICS
	ML.PREDICT ML.EVALUATE ML.EXPLAIN_PREDICT ML.FORECAST ML.EXPLAIN_FORECAST ML.DETECT_ANOMALIES
	ML.WEIGHTS ML.ADVANCED_WEIGHTS ML.FEATURE_INFO ML.TRAINING_INFO ML.TRIAL_INFO ML.CONFUSION_MATRIX
	ML.ROC_CURVE ML.RECOMMEND ML.GENERATE_TEXT ML.GENERATE_EMBEDDING ML.GENERATE_TEXT_EMBEDDING
	ML.UNDERSTAND_TEXT ML.TRANSLATE ML.PROCESS_DOCUMENT ML.TRANSCRIBE ML.ANNOTATE_IMAGE ML.CENTROIDS
	ML.PRINCIPAL_COMPONENTS ML.PRINCIPAL_COMPONENT_INFO ML.ARIMA_COEFFICIENTS ML.ARIMA_EVALUATE
	ML.GLOBAL_EXPLAIN ML.FEATURE_IMPORTANCE ML.RECONSTRUCTION_LOSS ML.VALIDATE_DATA_DRIFT
	ML.VALIDATE_DATA_SKEW ML.TFDV_DESCRIBE ML.TFDV_VALIDATE ML.DESCRIBE_DATA ML.GET_INSIGHTS
	ML.HOLIDAY_INFO ML.TRANSFORM ML.FEATURES_AT_TIME ML.ENTITY_FEATURES_AT_TIME
	AI.GENERATE_TABLE AI.FORECAST AI.DETECT_ANOMALIES AI.EVALUATE AI.GENERATE_EMBEDDING AI.GENERATE_TEXT
	AI.SEARCH AI.KEY_DRIVERS AI.PREDICT GRAPH_EXPAND`)

// bigQueryScalarFunctions are BigQuery's functions of the namespaces that
// reach objects, connections or endpoints (ML., AI., OBJ.), called in an
// expression.
var bigQueryScalarFunctions = strings.Fields(`
	ML.FEATURE_CROSS ML.POLYNOMIAL_EXPAND ML.BUCKETIZE ML.QUANTILE_BUCKETIZE ML.MIN_MAX_SCALER
	ML.STANDARD_SCALER ML.MAX_ABS_SCALER ML.ROBUST_SCALER ML.NORMALIZER ML.IMPUTER ML.ONE_HOT_ENCODER
	ML.LABEL_ENCODER ML.MULTI_HOT_ENCODER ML.NGRAMS ML.BAG_OF_WORDS ML.TF_IDF ML.DISTANCE ML.LP_NORM
	ML.CONVERT_COLOR_SPACE ML.CONVERT_IMAGE_TYPE ML.CONVERT_IMAGE_VALUE_TYPE ML.RESIZE_IMAGE ML.DECODE_IMAGE
	AI.GENERATE AI.GENERATE_BOOL AI.GENERATE_DOUBLE AI.GENERATE_INT AI.IF AI.SCORE AI.CLASSIFY AI.EMBED
	AI.SIMILARITY AI.AGG
	OBJ.MAKE_REF OBJ.FETCH_METADATA OBJ.GET_ACCESS_URL OBJ.GET_READ_URL`)

// madeUpFunctions are names no GoogleSQL dialect has, in the namespaces the
// reader must refuse by default and in the spellings that reach them.
var madeUpFunctions = []string{
	"NOT_A_TVF", "not_a_tvf", "`NOT_A_TVF`",
	"ML.NOT_A_FUNCTION", "ml.not_a_function", "`ML.NOT_A_FUNCTION`", "`ml`.`not_a_function`", "ML.`NOT_A_FUNCTION`",
	"AI.NOT_A_FUNCTION", "ai.not_a_function", "`AI.NOT_A_FUNCTION`", "`ai`.NOT_A_FUNCTION",
	"OBJ.NOT_A_FUNCTION", "obj.not_a_function", "`OBJ.NOT_A_FUNCTION`", "`obj`.`not_a_function`",
	"VECTOR_INDEX.NOT_A_FUNCTION", "NET.NOT_A_FUNCTION", "KEYS.NOT_A_FUNCTION", "SAFE.NET.NOT_A_FUNCTION",
	"SAFE.ML.NOT_A_FUNCTION", "SAFE.AI.NOT_A_FUNCTION", "SAFE.OBJ.NOT_A_FUNCTION",
}

// persistentFunctions are user-defined (table) functions of a dataset.
var persistentFunctions = []string{"ok.fn", "`my-proj`.ok.fn", "`my-proj.ok.fn`"}

// A callForm is one way to call a function {F}: a position (from-item or
// expression) and arguments naming objects. names are the objects the
// arguments name, which the reader must place unless it refuses.
type callForm struct {
	sql   string
	table bool
	names []zetaName
}

func probeName(kind sqltext.ObjectKind, path string) zetaName {
	return zetaName{Kind: kind, Path: strings.Split(path, "."), Where: "the probe's argument", Offset: -1}
}

var (
	probeTable      = probeName(sqltext.Table, "secret.t")
	probeTable2     = probeName(sqltext.Table, "secret.u")
	probeModel      = probeName(sqltext.Model, "secret.m")
	probeConnection = probeName(sqltext.Connection, "secret.c")
)

// callForms are the argument forms of GoogleSQL's grammar that name objects
// (a table-valued function's argument is an expression, TABLE path, MODEL
// path, CONNECTION path or DESCRIPTOR(…), positionally or named, though
// go-zetasql's grammar is older than named ones; a scalar function's is an
// expression), in both positions. A call ZetaSQL does not parse is not
// GoogleSQL and is not checked, except that a made-up name must be refused.
var callForms = []callForm{
	{"SELECT * FROM {F}(TABLE secret.t)", true, []zetaName{probeTable}},
	{"SELECT * FROM {F}(MODEL secret.m, TABLE secret.t, STRUCT(1 AS x))", true, []zetaName{probeModel, probeTable}},
	{"SELECT * FROM {F}(MODEL secret.m, (SELECT * FROM secret.t))", true, []zetaName{probeModel, probeTable}},
	{"SELECT * FROM {F}(TABLE secret.t, DESCRIPTOR(x), 'x', (SELECT * FROM secret.u))", true, []zetaName{probeTable, probeTable2}},
	{"SELECT * FROM {F}(MODEL secret.m, CONNECTION secret.c)", true, []zetaName{probeModel, probeConnection}},
	{"SELECT * FROM {F}(CONNECTION secret.c, 'SELECT 1')", true, []zetaName{probeConnection}},
	{"SELECT * FROM {F}('x', connection_id => 'secret.c')", true, []zetaName{probeConnection}},
	{"SELECT * FROM ok.a, {F}(input => TABLE secret.t, model => MODEL secret.m) AS f", true, []zetaName{probeTable, probeModel}},
	{"SELECT {F}('x')", false, nil},
	{"SELECT {F}((SELECT x FROM secret.t), 'x')", false, []zetaName{probeTable}},
	{"SELECT {F}('x', connection_id => 'secret.c')", false, []zetaName{probeConnection}},
	{"SELECT x FROM ok.a WHERE {F}(x, (SELECT MAX(x) FROM secret.t))", false, []zetaName{probeTable}},
}

// functionStats are the figures of the function half.
type functionStats struct {
	catalogFunctions                                                 int
	objectFunctions                                                  []string
	names, bigQueryNames, madeUpNames, persistentNames, catalogNames int
	calls, parsed, known, refused, misses                            int
	// checked counts the names compared with a call the reader does not
	// refuse.
	checked int
}

// catalogObjectFunctions lists ZetaSQL's built-in functions with all
// language features on: every one, and those that are table-valued or take
// a relation, model, connection or descriptor argument.
func catalogObjectFunctions(t *testing.T) (all []string, object []string, count int) {
	lang, _ := invLanguage()
	cat := types.NewSimpleCatalog("inventory")
	cat.AddZetaSQLBuiltinFunctions(lang.BuiltinFunctionOptions())
	fns, err := cat.Functions()
	if err != nil {
		t.Fatalf("listing ZetaSQL's built-in functions: %v", err)
	}
	if len(fns) < 200 {
		t.Fatalf("ZetaSQL's catalog lists only %d built-in functions; the catalog was not filled", len(fns))
	}
	add := func(list *[]string, name string) {
		if !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
	}
	for _, f := range fns {
		path := f.FunctionNamePath()
		name := strings.Join(path, ".")
		if name == "" || strings.HasPrefix(name, "$") {
			continue // an operator's internal name ($add, $case_no_value…)
		}
		add(&all, name)
		takes := false
		for _, s := range f.Signatures() {
			for _, a := range append(s.Arguments(), s.ResultType()) {
				if a.IsRelation() || a.IsModel() || a.IsConnection() || a.IsDescriptor() {
					takes = true
				}
			}
		}
		if takes {
			add(&object, name)
		}
	}
	for _, tvf := range cat.TableValuedFunctions() {
		add(&object, strings.Join(tvf.FunctionNamePath(), "."))
	}
	return all, object, len(fns)
}

func checkFunctionInventory(t *testing.T) functionStats {
	var s functionStats
	all, object, count := catalogObjectFunctions(t)
	s.catalogFunctions, s.objectFunctions = count, object
	if len(object) == 0 {
		t.Logf("functions: go-zetasql's built-in catalog (%d functions) has no table-valued function and no signature taking a table, model, connection or descriptor; "+
			"the grammar's argument forms are probed with BigQuery's names instead", count)
	} else {
		t.Logf("functions: ZetaSQL's built-in functions that are table-valued or take a table, model, connection or descriptor: %s", strings.Join(object, ", "))
	}

	type probe struct {
		name  string
		group string
		forms []callForm
	}
	var probes []probe
	tableForms := slices.DeleteFunc(slices.Clone(callForms), func(f callForm) bool { return !f.table })
	for _, n := range bigQueryTableFunctions {
		probes = append(probes, probe{n, "BigQuery", callForms})
	}
	for _, n := range bigQueryScalarFunctions {
		probes = append(probes, probe{n, "BigQuery", callForms})
	}
	for _, n := range madeUpFunctions {
		probes = append(probes, probe{n, "made up", callForms})
	}
	for _, n := range persistentFunctions {
		probes = append(probes, probe{n, "persistent", callForms})
	}
	for _, n := range object {
		probes = append(probes, probe{n, "ZetaSQL", callForms})
	}
	for _, n := range all {
		if !slices.Contains(object, n) {
			// Not table-valued in ZetaSQL: as a from-item it is a
			// table-valued function the reader has not been taught.
			probes = append(probes, probe{n, "ZetaSQL", tableForms})
		}
	}

	type miss struct {
		names   []string
		example string
	}
	misses := map[string]*miss{}
	var missForms, knownNames, refusedNames, unknownTVFs []string
	formParsed := map[string]int{}
	formCalls := map[string]int{}
	for _, p := range probes {
		s.names++
		switch p.group {
		case "BigQuery":
			s.bigQueryNames++
		case "made up":
			s.madeUpNames++
		case "persistent":
			s.persistentNames++
		case "ZetaSQL":
			s.catalogNames++
		}
		// knownAs: the positions in which a call ZetaSQL parses leaves
		// nothing unplaced; acceptedAs: the same, parsed or not.
		knownAs, acceptedAs := map[bool]bool{}, map[bool]bool{}
		for _, f := range p.forms {
			sql := strings.ReplaceAll(f.sql, "{F}", p.name)
			s.calls++
			formCalls[f.sql]++
			zp := invZetaParse(sql)
			if zp.err != nil {
				// Not GoogleSQL's grammar: BigQuery would not run it
				// either. Still, a made-up name must not be accepted.
				if !invCompare(sql, nil).unplaced {
					acceptedAs[f.table] = true
				}
				continue
			}
			s.parsed++
			formParsed[f.sql]++
			o := invCompare(sql, append(slices.Clone(f.names), zp.names...))
			s.checked += o.checked
			if !o.unplaced {
				knownAs[f.table], acceptedAs[f.table] = true, true
				if p.group == "ZetaSQL" && f.table && !slices.Contains(object, p.name) {
					unknownTVFs = append(unknownTVFs, sql)
				}
			}
			if len(o.problems) > 0 {
				s.misses++
				m := misses[f.sql]
				if m == nil {
					m = &miss{example: fmt.Sprintf("%q:\n        %s", sql, strings.Join(o.problems, "\n        "))}
					misses[f.sql] = m
					missForms = append(missForms, f.sql)
				}
				m.names = append(m.names, p.name)
			}
		}
		if len(knownAs) > 0 {
			s.known++
			var pos []string
			if knownAs[true] {
				pos = append(pos, "from-item")
			}
			if knownAs[false] {
				pos = append(pos, "expression")
			}
			knownNames = append(knownNames, p.name+" ("+strings.Join(pos, ", ")+")")
		} else {
			s.refused++
			if p.group != "ZetaSQL" {
				refusedNames = append(refusedNames, p.name)
			}
		}
		if p.group == "made up" {
			// A made-up name is unplaced as a from-item (a SAFE.
			// prefix makes it a project's persistent table function,
			// which is placed), and in an expression too in the
			// namespaces that reach objects.
			if acceptedAs[true] && !strings.HasPrefix(strings.ToUpper(p.name), "SAFE.") {
				t.Errorf("the made-up table-valued function %s is accepted as a from-item; a function the reader has not been taught must be unplaced", p.name)
			}
			if acceptedAs[false] && objectNamespace(p.name) {
				t.Errorf("the made-up function %s is accepted in an expression; a function of ML., AI. or OBJ. the reader has not been taught must be unplaced", p.name)
			}
		}
	}
	if s.checked < 500 {
		t.Errorf("only %d names were compared with a call the reader does not refuse; the function check checks too little", s.checked)
	}
	// The "unplaced by default" half, as the issue spells it.
	for _, sql := range []string{
		"SELECT * FROM NOT_A_TVF(1)",
		"SELECT * FROM ML.NOT_A_FUNCTION(MODEL d.m)",
		"SELECT AI.NOT_A_FUNCTION('x')",
		"SELECT OBJ.NOT_A_FUNCTION('x')",
	} {
		st := sqltext.Parse(sql).Statements
		if len(st) != 1 || len(st[0].Unplaced) == 0 {
			t.Errorf("%q: a function the reader has not been taught must be unplaced; the reader returned %+v", sql, st)
		}
		if zp := invZetaParse(sql); zp.err != nil {
			t.Errorf("%q: ZetaSQL does not parse it: %v", sql, zp.err)
		}
	}
	sort.Strings(knownNames)
	t.Logf("functions the reader knows (a call ZetaSQL parses leaves nothing unplaced): %s", strings.Join(knownNames, ", "))
	t.Logf("BigQuery and made-up function names the reader refuses in every position: %s", strings.Join(refusedNames, ", "))
	if testing.Verbose() {
		for _, f := range callForms {
			t.Logf("call form %q: ZetaSQL parsed %d of %d calls", f.sql, formParsed[f.sql], formCalls[f.sql])
		}
	}
	if len(unknownTVFs) > 0 {
		t.Errorf("the reader accepts %d from-item calls, which ZetaSQL parses, of built-in functions that are not table-valued (a table-valued function it has not been taught must be unplaced):\n%s",
			len(unknownTVFs), strings.Join(limitLines(unknownTVFs, 20), "\n"))
	}
	if len(missForms) > 0 {
		var lines []string
		for _, f := range missForms {
			m := misses[f]
			lines = append(lines, fmt.Sprintf("%q with %d names: %s\n    e.g. %s", f, len(m.names), strings.Join(m.names, ", "), m.example))
		}
		t.Errorf("the reader accepts %d calls ZetaSQL parses without placing an object their arguments name (it must place it or leave the statement unplaced):\n%s",
			s.misses, strings.Join(lines, "\n"))
	}
	return s
}

// objectNamespace reports whether a function name (in any quoting, after
// SAFE.) is in one of the namespaces whose functions reach objects.
func objectNamespace(name string) bool {
	parts := strings.Split(strings.ToUpper(strings.ReplaceAll(name, "`", "")), ".")
	if len(parts) > 2 && parts[0] == "SAFE" {
		parts = parts[1:]
	}
	return len(parts) == 2 && (parts[0] == "ML" || parts[0] == "AI" || parts[0] == "OBJ")
}

// ---- Statement kinds -------------------------------------------------------

// zetaStatementKinds are the statement node kinds of go-zetasql's parse
// tree: every Kind whose name ends in "Statement", and every node type that
// embeds, however deep, the statement base node (SET, DECLARE, BEGIN … END
// and the other script statements without the suffix), found in the ast
// package's source.
func zetaStatementKinds(t *testing.T) []string {
	kinds := map[string]zast.Kind{}
	for k, empty := zast.Kind(0), 0; empty < 64; k++ {
		name := k.String()
		if name == "" {
			empty++
			continue
		}
		kinds[name] = k
	}
	out := map[string]bool{}
	for name := range kinds {
		if strings.HasSuffix(name, "Statement") {
			out[name] = true
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := exec.CommandContext(ctx, "go", "list", "-f", "{{.Dir}}", "github.com/goccy/go-zetasql/ast").Output()
	if err != nil {
		t.Fatalf("finding go-zetasql's ast package: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(dir)), "node.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	embeds := map[string][]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, sp := range g.Specs {
			ts := sp.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, fld := range st.Fields.List {
				if len(fld.Names) > 0 {
					continue
				}
				if star, ok := fld.Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok {
						embeds[ts.Name.Name] = append(embeds[ts.Name.Name], id.Name)
					}
				}
			}
		}
	}
	var isStatement func(string, int) bool
	isStatement = func(typ string, depth int) bool {
		if typ == "StatementBaseNode" {
			return true
		}
		if depth > 20 {
			return false
		}
		for _, e := range embeds[typ] {
			if isStatement(e, depth+1) {
				return true
			}
		}
		return false
	}
	fromSource := 0
	var unsuffixed []string
	for typ := range embeds {
		name := strings.TrimSuffix(typ, "Node")
		if _, ok := kinds[name]; ok && isStatement(typ, 0) {
			fromSource++
			if !out[name] {
				unsuffixed = append(unsuffixed, name)
			}
			out[name] = true
		}
	}
	if fromSource < 60 {
		t.Fatalf("only %d node types of %s embed StatementBaseNode; the source scan is broken", fromSource, file)
	}
	delete(out, "StatementList")
	sort.Strings(unsuffixed)
	t.Logf("statement kinds: %d of go-zetasql's node kinds, %d of them statements whose name does not end in Statement: %s",
		len(out), len(unsuffixed), strings.Join(unsuffixed, ", "))
	var list []string
	for k := range out {
		list = append(list, k)
		statementKindNames[k] = true
	}
	sort.Strings(list)
	return list
}

// statementExamples map every statement node kind of go-zetasql to examples
// (written from ZetaSQL's grammar and BigQuery's statement reference) that
// put an object of a dataset the allowlist would exclude (secret) in every
// position the statement names one. An example ZetaSQL's older grammar
// cannot parse is counted and still read by the reader.
var statementExamples = map[string][]string{
	"AbortBatchStatement": {"ABORT BATCH"},
	"AlterAllRowAccessPoliciesStatement": {
		"ALTER ALL ROW ACCESS POLICIES ON secret.t REVOKE FROM ('user:a@example.com')",
	},
	"AlterDatabaseStatement": {"ALTER DATABASE secret SET OPTIONS (description = 'x')"},
	"AlterEntityStatement": {
		"ALTER RESERVATION `admin.region-us.r` SET OPTIONS (slot_capacity = 100)",
		"ALTER CAPACITY `admin.region-us.c` SET OPTIONS (slot_count = 100)",
	},
	"AlterMaterializedViewStatement": {
		"ALTER MATERIALIZED VIEW secret.mv SET OPTIONS (enable_refresh = false)",
		"ALTER MATERIALIZED VIEW IF EXISTS `my-proj.secret.mv` SET OPTIONS (refresh_interval_minutes = 60)",
	},
	"AlterPrivilegeRestrictionStatement": {
		"ALTER PRIVILEGE RESTRICTION ON SELECT (c) ON TABLE secret.t ADD ('user:a@example.com')",
		"ALTER PRIVILEGE RESTRICTION IF EXISTS ON SELECT (c) ON VIEW secret.v RESTRICT TO ('user:a@example.com')",
	},
	"AlterRowAccessPolicyStatement": {
		"ALTER ROW ACCESS POLICY p ON secret.t GRANT TO ('user:a@example.com')",
		"ALTER ROW ACCESS POLICY p ON ok.t FILTER USING (x IN (SELECT x FROM secret.s))",
	},
	"AlterSchemaStatement": {
		"ALTER SCHEMA secret SET OPTIONS (description = 'x')",
		"ALTER SCHEMA IF EXISTS `my-proj`.secret SET DEFAULT COLLATE 'und:ci'",
		"ALTER SCHEMA secret ADD REPLICA `us-east4` OPTIONS (location = 'us-east4')",
	},
	"AlterTableStatement": {
		"ALTER TABLE secret.t SET OPTIONS (description = 'x')",
		"ALTER TABLE secret.t ADD COLUMN c INT64",
		"ALTER TABLE IF EXISTS secret.t DROP COLUMN IF EXISTS c",
		"ALTER TABLE secret.t RENAME TO t2",
		"ALTER TABLE ok.t RENAME TO secret.t2",
		"ALTER TABLE secret.t RENAME COLUMN a TO b",
		"ALTER TABLE secret.t ALTER COLUMN c SET DATA TYPE NUMERIC",
		"ALTER TABLE secret.t ALTER COLUMN c SET OPTIONS (description = 'x')",
		"ALTER TABLE secret.t ALTER COLUMN c SET DEFAULT CURRENT_TIMESTAMP()",
		"ALTER TABLE secret.t ALTER COLUMN c DROP NOT NULL",
		"ALTER TABLE secret.t SET DEFAULT COLLATE 'und:ci'",
		"ALTER TABLE secret.t ADD PRIMARY KEY (a) NOT ENFORCED",
		"ALTER TABLE ok.t ADD FOREIGN KEY (a) REFERENCES secret.s (b) NOT ENFORCED",
		"ALTER TABLE ok.t ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES secret.s (b) NOT ENFORCED",
		"ALTER TABLE ok.t ADD COLUMN c INT64 REFERENCES secret.s (b) NOT ENFORCED",
		"ALTER TABLE secret.t DROP PRIMARY KEY",
		"ALTER TABLE secret.t DROP CONSTRAINT fk",
	},
	"AlterViewStatement": {
		"ALTER VIEW secret.v SET OPTIONS (description = 'x')",
		"ALTER VIEW secret.v ALTER COLUMN c SET OPTIONS (description = 'x')",
	},
	"AnalyzeStatement":     {"ANALYZE secret.t", "ANALYZE secret.t (a, b), ok.u"},
	"AssertStatement":      {"ASSERT (SELECT COUNT(*) FROM secret.t) > 0 AS 'rows'"},
	"AssignmentFromStruct": {"SET (a, b) = (SELECT AS STRUCT x, y FROM secret.t LIMIT 1)"},
	"AuxLoadDataStatement": {
		"LOAD DATA INTO secret.t FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])",
		"LOAD DATA OVERWRITE secret.t FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])",
		"LOAD DATA INTO ok.t FROM FILES (format = 'CSV', uris = ['gs://b/x.csv']) WITH CONNECTION secret.c",
		"LOAD DATA INTO secret.t (a INT64) PARTITION BY a CLUSTER BY a OPTIONS (description = 'x') FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])",
		"LOAD DATA INTO ok.t FROM FILES (format = 'PARQUET', uris = ['gs://b/*']) WITH PARTITION COLUMNS (d DATE) WITH CONNECTION secret.c",
		"LOAD DATA INTO TEMP TABLE t FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])",
	},
	"BeginEndBlock": {
		"BEGIN SELECT * FROM secret.t; END",
		"BEGIN SELECT 1; EXCEPTION WHEN ERROR THEN SELECT * FROM secret.t; END",
	},
	"BeginStatement":          {"BEGIN TRANSACTION", "BEGIN"},
	"BreakStatement":          {"BREAK", "LEAVE", "LOOP BREAK; END LOOP"},
	"CallStatement":           {"CALL secret.p()", "CALL ok.p((SELECT COUNT(*) FROM secret.t))", "CALL `my-proj`.secret.p(1, 'x')"},
	"CaseStatement":           {"CASE WHEN EXISTS (SELECT 1 FROM secret.t) THEN SELECT 1; ELSE SELECT 2; END CASE"},
	"CloneDataStatement":      {"CLONE DATA INTO ok.t FROM secret.s", "CLONE DATA INTO secret.t FROM ok.s FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP()"},
	"CommitStatement":         {"COMMIT TRANSACTION", "COMMIT"},
	"ContinueStatement":       {"CONTINUE", "ITERATE", "WHILE TRUE DO CONTINUE; END WHILE"},
	"CreateConstantStatement": {"CREATE CONSTANT secret.c = 1", "CREATE CONSTANT ok.c = (SELECT COUNT(*) FROM secret.t)"},
	"CreateDatabaseStatement": {"CREATE DATABASE secret"},
	"CreateExternalTableStatement": {
		"CREATE EXTERNAL TABLE secret.t OPTIONS (format = 'CSV', uris = ['gs://b/x.csv'])",
		"CREATE OR REPLACE EXTERNAL TABLE ok.t WITH CONNECTION secret.c OPTIONS (format = 'CSV', uris = ['gs://b/x.csv'])",
		"CREATE EXTERNAL TABLE ok.t LIKE secret.s OPTIONS (format = 'CSV', uris = ['gs://b/x.csv'])",
		"CREATE EXTERNAL TABLE ok.t (a INT64) WITH PARTITION COLUMNS (d DATE) WITH CONNECTION `my-proj.us.c` OPTIONS (format = 'PARQUET', uris = ['gs://b/*'], hive_partition_uri_prefix = 'gs://b')",
		"CREATE TEMP EXTERNAL TABLE t OPTIONS (format = 'CSV', uris = ['gs://b/x.csv'])",
	},
	"CreateFunctionStatement": {
		"CREATE FUNCTION secret.f(x INT64) AS (x + 1)",
		"CREATE OR REPLACE FUNCTION ok.f() RETURNS INT64 AS ((SELECT COUNT(*) FROM secret.t))",
		"CREATE FUNCTION ok.f(x ANY TYPE) AS (secret.g(x))",
		"CREATE FUNCTION ok.f(s STRING) RETURNS STRING LANGUAGE js AS 'return s;'",
		"CREATE FUNCTION ok.f(x INT64) RETURNS INT64 REMOTE WITH CONNECTION secret.c OPTIONS (endpoint = 'https://x')",
		"CREATE AGGREGATE FUNCTION secret.f(x INT64) AS (SUM(x))",
		"CREATE TEMP FUNCTION f(x INT64) AS ((SELECT MAX(a) FROM secret.t) + x)",
		"CREATE FUNCTION IF NOT EXISTS `my-proj.secret.f`(x INT64) AS (x)",
	},
	"CreateIndexStatement": {
		"CREATE SEARCH INDEX i ON secret.t (ALL COLUMNS)",
		"CREATE SEARCH INDEX IF NOT EXISTS i ON secret.t (a, b) OPTIONS (analyzer = 'LOG_ANALYZER')",
		"CREATE VECTOR INDEX i ON secret.t (e) OPTIONS (index_type = 'IVF')",
		"CREATE INDEX i ON secret.t (a)",
		"CREATE UNIQUE INDEX i ON secret.t (a) STORING (b)",
	},
	"CreateModelStatement": {
		"CREATE MODEL secret.m OPTIONS (model_type = 'linear_reg') AS SELECT 1 AS label",
		"CREATE OR REPLACE MODEL ok.m OPTIONS (model_type = 'kmeans') AS SELECT * FROM secret.t",
		"CREATE MODEL ok.m TRANSFORM (ML.STANDARD_SCALER(x) OVER () AS x, label) OPTIONS (model_type = 'linear_reg') AS SELECT x, label FROM secret.t",
		"CREATE MODEL ok.m REMOTE WITH CONNECTION secret.c OPTIONS (endpoint = 'gemini-pro')",
		"CREATE MODEL ok.m INPUT (x STRING) OUTPUT (y FLOAT64) REMOTE WITH CONNECTION secret.c OPTIONS (endpoint = 'https://x')",
		"CREATE MODEL ok.m OPTIONS (model_type = 'ARIMA_PLUS') AS (training_data AS (SELECT * FROM secret.t), custom_holiday AS (SELECT * FROM secret.h))",
	},
	"CreatePrivilegeRestrictionStatement": {
		"CREATE PRIVILEGE RESTRICTION ON SELECT (c) ON TABLE secret.t RESTRICT TO ('user:a@example.com')",
	},
	"CreateProcedureStatement": {
		"CREATE PROCEDURE secret.p() BEGIN SELECT 1; END",
		"CREATE OR REPLACE PROCEDURE ok.p(x INT64) BEGIN SELECT * FROM secret.t WHERE a = x; END",
		"CREATE PROCEDURE ok.p() BEGIN INSERT INTO secret.t VALUES (1); CALL secret.q(); END",
		"CREATE PROCEDURE ok.p() WITH CONNECTION secret.c OPTIONS (engine = 'SPARK') LANGUAGE PYTHON AS r'print(1)'",
	},
	"CreateRowAccessPolicyStatement": {
		"CREATE ROW ACCESS POLICY p ON secret.t GRANT TO ('user:a@example.com') FILTER USING (TRUE)",
		"CREATE OR REPLACE ROW ACCESS POLICY p ON ok.t GRANT TO ('domain:example.com') FILTER USING (x IN (SELECT x FROM secret.s))",
	},
	"CreateSchemaStatement": {
		"CREATE SCHEMA secret",
		"CREATE SCHEMA IF NOT EXISTS `my-proj`.secret OPTIONS (location = 'US')",
		"CREATE SCHEMA secret DEFAULT COLLATE 'und:ci'",
		"CREATE EXTERNAL SCHEMA secret WITH CONNECTION ok.c OPTIONS (external_source = 'aws-glue://x')",
	},
	"CreateSnapshotTableStatement": {
		"CREATE SNAPSHOT TABLE ok.s CLONE secret.t",
		"CREATE SNAPSHOT TABLE IF NOT EXISTS secret.s CLONE ok.t FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01' OPTIONS (expiration_timestamp = TIMESTAMP '2025-01-01')",
	},
	"CreateTableFunctionStatement": {
		"CREATE TABLE FUNCTION secret.f(n INT64) AS SELECT n",
		"CREATE OR REPLACE TABLE FUNCTION ok.f() RETURNS TABLE<a INT64> AS SELECT a FROM secret.t",
		"CREATE TABLE FUNCTION ok.f(t TABLE<a INT64>) AS SELECT * FROM t JOIN secret.s USING (a)",
	},
	"CreateTableStatement": {
		"CREATE TABLE secret.t (a INT64)",
		"CREATE OR REPLACE TABLE ok.t AS SELECT * FROM secret.s",
		"CREATE TABLE ok.t (a INT64) PARTITION BY RANGE_BUCKET(a, GENERATE_ARRAY(0, 10, 1)) CLUSTER BY a OPTIONS (description = 'x') AS SELECT a FROM secret.s",
		"CREATE TABLE IF NOT EXISTS ok.t LIKE secret.s",
		"CREATE TABLE ok.t LIKE secret.s AS SELECT * FROM ok.u",
		"CREATE TABLE ok.t COPY secret.s",
		"CREATE TABLE ok.t CLONE secret.s",
		"CREATE TABLE ok.t CLONE secret.s FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01'",
		"CREATE TABLE ok.t (a INT64, FOREIGN KEY (a) REFERENCES secret.s (b) NOT ENFORCED)",
		"CREATE TABLE ok.t (a INT64, CONSTRAINT fk FOREIGN KEY (a) REFERENCES secret.s (b) NOT ENFORCED)",
		"CREATE TABLE ok.t (a INT64 REFERENCES secret.s (b) NOT ENFORCED)",
		"CREATE TABLE ok.t (a INT64, PRIMARY KEY (a) NOT ENFORCED) AS (SELECT a FROM secret.s)",
		"CREATE TABLE ok.t (a INT64 DEFAULT 1 OPTIONS (description = 'x')) DEFAULT COLLATE 'und:ci'",
		"CREATE TEMP TABLE t AS SELECT * FROM secret.s",
		"CREATE TABLE ok.t (a INT64) WITH CONNECTION secret.c OPTIONS (file_format = 'PARQUET', table_format = 'ICEBERG', storage_uri = 'gs://b/t')",
		"CREATE TABLE `my-proj.secret.t` (a STRUCT<b ARRAY<INT64>>)",
	},
	"CreateEntityStatement": {
		"CREATE RESERVATION `admin.region-us.r` OPTIONS (slot_capacity = 100)",
		"CREATE ASSIGNMENT `admin.region-us.r.a` OPTIONS (assignee = 'projects/p', job_type = 'QUERY')",
	},
	"CreateViewStatement": {
		"CREATE VIEW secret.v AS SELECT 1 AS a",
		"CREATE OR REPLACE VIEW ok.v AS SELECT * FROM secret.t",
		"CREATE VIEW IF NOT EXISTS ok.v (a) OPTIONS (description = 'x') AS WITH c AS (SELECT * FROM secret.t) SELECT * FROM c",
		"CREATE TEMP VIEW v AS SELECT * FROM secret.t",
	},
	"CreateMaterializedViewStatement": {
		"CREATE MATERIALIZED VIEW secret.mv AS SELECT COUNT(*) AS n FROM ok.t",
		"CREATE MATERIALIZED VIEW ok.mv PARTITION BY d CLUSTER BY a OPTIONS (enable_refresh = true) AS SELECT d, a, COUNT(*) AS n FROM secret.t GROUP BY d, a",
		"CREATE MATERIALIZED VIEW ok.mv AS REPLICA OF secret.src",
		"CREATE MATERIALIZED VIEW ok.mv OPTIONS (replication_interval_seconds = 600) AS REPLICA OF `my-proj.secret.src`",
	},
	"DefineTableStatement": {"DEFINE TABLE secret.t (a = 1)"},
	"DeleteStatement": {
		"DELETE secret.t WHERE TRUE",
		"DELETE FROM ok.t WHERE a IN (SELECT a FROM secret.s)",
		"DELETE FROM secret.t AS x WHERE x.a = 1 ASSERT_ROWS_MODIFIED 1",
	},
	"DescribeStatement":                 {"DESCRIBE secret.t", "DESCRIBE TABLE secret.t", "DESCRIBE MODEL secret.m", "DESCRIBE FUNCTION secret.f"},
	"DropAllRowAccessPoliciesStatement": {"DROP ALL ROW ACCESS POLICIES ON secret.t"},
	"DropEntityStatement":               {"DROP RESERVATION `admin.region-us.r`", "DROP ASSIGNMENT IF EXISTS `admin.region-us.r.a`"},
	"DropFunctionStatement": {
		"DROP FUNCTION secret.f",
		"DROP FUNCTION IF EXISTS `my-proj`.secret.f",
	},
	"DropPrivilegeRestrictionStatement": {"DROP PRIVILEGE RESTRICTION ON SELECT (c) ON TABLE secret.t"},
	"DropRowAccessPolicyStatement":      {"DROP ROW ACCESS POLICY p ON secret.t", "DROP ROW ACCESS POLICY IF EXISTS p ON secret.t"},
	"DropSearchIndexStatement":          {"DROP SEARCH INDEX i ON secret.t", "DROP SEARCH INDEX IF EXISTS i ON secret.t"},
	"DropStatement": {
		"DROP TABLE secret.t",
		"DROP TABLE IF EXISTS `my-proj.secret.t`",
		"DROP VIEW secret.v",
		"DROP EXTERNAL TABLE secret.t",
		"DROP SCHEMA secret",
		"DROP SCHEMA IF EXISTS secret CASCADE",
		"DROP MODEL secret.m",
		"DROP PROCEDURE secret.p",
		"DROP CONSTANT secret.c",
		"DROP DATABASE secret",
		"DROP INDEX secret.i",
		"DROP VECTOR INDEX i ON secret.t",
	},
	"DropTableFunctionStatement":    {"DROP TABLE FUNCTION secret.f", "DROP TABLE FUNCTION IF EXISTS secret.f"},
	"DropMaterializedViewStatement": {"DROP MATERIALIZED VIEW secret.mv", "DROP MATERIALIZED VIEW IF EXISTS secret.mv"},
	"DropSnapshotTableStatement":    {"DROP SNAPSHOT TABLE secret.s", "DROP SNAPSHOT TABLE IF EXISTS secret.s"},
	"ExecuteImmediateStatement":     {"EXECUTE IMMEDIATE 'SELECT * FROM secret.t'", "EXECUTE IMMEDIATE 'SELECT ?' INTO x USING 1"},
	"ExplainStatement":              {"EXPLAIN SELECT * FROM secret.t"},
	"ExportDataStatement": {
		"EXPORT DATA OPTIONS (uri = 'gs://b/*.csv', format = 'CSV') AS SELECT * FROM secret.t",
		"EXPORT DATA WITH CONNECTION secret.c OPTIONS (uri = 's3://b/*', format = 'JSON') AS SELECT * FROM ok.t",
		"EXPORT DATA OPTIONS (uri = 'gs://b/*.csv', format = 'CSV') AS WITH c AS (SELECT * FROM secret.t) SELECT * FROM c",
	},
	"ExportModelStatement": {
		"EXPORT MODEL secret.m OPTIONS (uri = 'gs://b/m')",
		"EXPORT MODEL secret.m WITH CONNECTION ok.c OPTIONS (uri = 'gs://b/m')",
	},
	"ForInStatement": {"FOR r IN (SELECT * FROM secret.t) DO SELECT r.a; END FOR"},
	"GrantStatement": {
		"GRANT `roles/bigquery.dataViewer` ON TABLE secret.t TO 'user:a@example.com'",
		"GRANT `roles/bigquery.dataViewer` ON VIEW secret.v TO 'user:a@example.com', 'group:g@example.com'",
		"GRANT `roles/bigquery.dataViewer` ON SCHEMA secret TO 'user:a@example.com'",
		"GRANT `roles/bigquery.dataViewer` ON EXTERNAL TABLE secret.t TO 'user:a@example.com'",
		"GRANT `roles/bigquery.dataViewer` ON MATERIALIZED VIEW secret.mv TO 'user:a@example.com'",
		"GRANT `roles/bigquery.dataViewer` ON DATASET secret TO 'user:a@example.com'",
		"GRANT `roles/bigquery.dataViewer` ON ROUTINE secret.f TO 'user:a@example.com'",
		"GRANT `roles/bigquery.dataViewer` ON FUNCTION secret.f TO 'user:a@example.com'",
		"GRANT `roles/bigquery.dataViewer` ON MODEL secret.m TO 'user:a@example.com'",
		"GRANT `roles/bigquery.connectionUser` ON CONNECTION secret.c TO 'user:a@example.com'",
		"GRANT SELECT ON secret.t TO 'user:a@example.com'",
		"GRANT SELECT (a, b), UPDATE ON TABLE secret.t TO 'user:a@example.com'",
	},
	"HintedStatement": {"@{x = 1} SELECT * FROM secret.t", "@{x = 1} INSERT INTO secret.t VALUES (1)"},
	"IfStatement": {
		"IF EXISTS (SELECT 1 FROM secret.t) THEN SELECT 1; END IF",
		"IF TRUE THEN SELECT 1; ELSEIF (SELECT COUNT(*) FROM secret.t) > 0 THEN SELECT 2; ELSE SELECT 3; END IF",
	},
	"ImportStatement": {"IMPORT MODULE secret.m", "IMPORT PROTO 'secret/x.proto'"},
	"InsertStatement": {
		"INSERT secret.t (a) VALUES (1)",
		"INSERT INTO secret.t SELECT 1",
		"INSERT INTO ok.t SELECT * FROM secret.s",
		"INSERT INTO ok.t (a) VALUES ((SELECT MAX(a) FROM secret.s))",
		"INSERT INTO ok.t (a) SELECT a FROM ok.u WHERE a IN (SELECT a FROM secret.s)",
		"INSERT OR IGNORE INTO secret.t (a) VALUES (1)",
		"INSERT OR REPLACE secret.t (a) VALUES (1)",
		"INSERT OR UPDATE INTO secret.t (a) VALUES (1)",
		"INSERT INTO secret.t (a) VALUES (1) THEN RETURN *",
		"INSERT INTO ok.t WITH c AS (SELECT * FROM secret.s) SELECT * FROM c",
		"INSERT INTO `my-proj`.secret.t (a) VALUES (DEFAULT) ASSERT_ROWS_MODIFIED 1",
	},
	"MergeStatement": {
		"MERGE secret.t USING ok.s ON FALSE WHEN NOT MATCHED THEN INSERT ROW",
		"MERGE INTO ok.t T USING secret.s S ON T.id = S.id WHEN MATCHED THEN DELETE",
		"MERGE ok.t T USING (SELECT * FROM secret.s) S ON T.id = S.id WHEN MATCHED THEN UPDATE SET x = S.x",
		"MERGE ok.t T USING ok.s S ON T.id = S.id WHEN NOT MATCHED BY SOURCE AND T.x IN (SELECT x FROM secret.u) THEN DELETE",
		"MERGE ok.t T USING ok.s S ON T.id = S.id WHEN NOT MATCHED BY TARGET THEN INSERT (id, x) VALUES (S.id, (SELECT MAX(x) FROM secret.u))",
	},
	"ModuleStatement":     {"MODULE secret.m"},
	"ParameterAssignment": {"SET @p = (SELECT COUNT(*) FROM secret.t)"},
	"QueryStatement": {
		"SELECT * FROM secret.t",
		"WITH c AS (SELECT * FROM secret.t) SELECT * FROM c",
		"(SELECT 1 AS a) UNION ALL (SELECT a FROM secret.t)",
		"SELECT * FROM ok.a, secret.t",
		"SELECT * FROM ok.fn(TABLE secret.t)",
		"SELECT * FROM ML.PREDICT(MODEL secret.m, TABLE secret.t)",
		"SELECT * FROM ok.a JOIN secret.t FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP() USING (id)",
		"SELECT secret.f(1)",
		"SELECT (SELECT COUNT(*) FROM secret.t)",
		"SELECT * FROM ok.a WHERE EXISTS (SELECT 1 FROM secret.t) QUALIFY ROW_NUMBER() OVER () = 1",
		"SELECT * FROM secret.t TABLESAMPLE SYSTEM (10 PERCENT)",
		"SELECT * FROM secret.t PIVOT (SUM(a) FOR b IN ('x')) AS p",
	},
	"RaiseStatement":  {"RAISE USING MESSAGE = (SELECT MAX(m) FROM secret.t)", "RAISE"},
	"RenameStatement": {"RENAME TABLE secret.a TO secret.b", "RENAME TABLE ok.a TO secret.b"},
	"RepeatStatement": {"REPEAT SELECT 1; UNTIL (SELECT COUNT(*) FROM secret.t) > 0 END REPEAT"},
	"ReturnStatement": {"RETURN"},
	"RevokeStatement": {
		"REVOKE `roles/bigquery.dataViewer` ON TABLE secret.t FROM 'user:a@example.com'",
		"REVOKE `roles/bigquery.dataEditor` ON SCHEMA secret FROM 'group:g@example.com'",
		"REVOKE `roles/bigquery.dataViewer` ON VIEW secret.v FROM 'user:a@example.com'",
		"REVOKE `roles/bigquery.dataViewer` ON DATASET secret FROM 'user:a@example.com'",
		"REVOKE SELECT ON secret.t FROM 'user:a@example.com'",
	},
	"RollbackStatement":       {"ROLLBACK TRANSACTION", "ROLLBACK"},
	"RunBatchStatement":       {"RUN BATCH"},
	"SetTransactionStatement": {"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", "SET TRANSACTION READ ONLY"},
	"ShowStatement":           {"SHOW TABLES FROM secret", "SHOW MATERIALIZED VIEWS"},
	"SingleAssignment":        {"SET x = (SELECT COUNT(*) FROM secret.t)"},
	"StarBatchStatement":      {"START BATCH DDL"},
	"SystemVariableAssignment": {
		"SET @@dataset_id = 'secret'",
		"SET @@dataset_project_id = 'my-proj'",
		"SET @@query_label = (SELECT MAX(l) FROM secret.t)",
	},
	"TrucateStatement": {"TRUNCATE TABLE secret.t", "TRUNCATE TABLE `my-proj.secret.t` WHERE TRUE"},
	"UpdateStatement": {
		"UPDATE secret.t SET a = 1 WHERE TRUE",
		"UPDATE ok.t SET a = s.a FROM secret.s WHERE t.id = s.id",
		"UPDATE ok.t SET a = (SELECT MAX(a) FROM secret.s) WHERE TRUE",
		"UPDATE secret.t AS x SET x.a = 1 WHERE x.b IN (SELECT b FROM ok.u)",
		"UPDATE ok.t SET (INSERT arr VALUES (1)) WHERE TRUE",
	},
	"VariableDeclaration": {"DECLARE n INT64 DEFAULT (SELECT COUNT(*) FROM secret.t)", "DECLARE a, b STRING"},
	"WhileStatement": {
		"WHILE (SELECT COUNT(*) FROM secret.t) > 0 DO SELECT 1; END WHILE",
		"LOOP SELECT * FROM secret.t; END LOOP",
	},
}

// statementStats are the figures of the statement half.
type statementStats struct {
	covered, examples, parsed, notParsed, unrepresentable, known, unplaced, misses int
	// checked counts ZetaSQL's names compared with a statement the reader
	// does not refuse.
	checked int
}

func checkStatementKinds(t *testing.T, kinds []string) statementStats {
	var s statementStats
	var missing []string
	for _, k := range kinds {
		if len(statementExamples[k]) == 0 {
			missing = append(missing, k)
			continue
		}
		s.covered++
	}
	if len(missing) > 0 {
		t.Errorf("go-zetasql has statement kinds the table has no example for; write one for each and check what the reader makes of it: %s", strings.Join(missing, ", "))
	}
	var keys []string
	for k := range statementExamples {
		if !slices.Contains(kinds, k) {
			t.Errorf("the table maps %q, which is not a statement kind of go-zetasql", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)

	var misses, wrongKind, notParsed, unrepresentable []string
	acceptedKinds := map[string]int{}
	for _, k := range keys {
		for _, sql := range statementExamples[k] {
			s.examples++
			zp := invZetaParse(sql)
			switch {
			case zp.unrepresentable:
				s.unrepresentable++
				unrepresentable = append(unrepresentable, fmt.Sprintf("%s: %q: %v", k, sql, zp.err))
			case zp.err != nil:
				s.notParsed++
				notParsed = append(notParsed, fmt.Sprintf("%s: %q: %v", k, sql, zp.err))
			case !slices.Contains(zp.kinds, k):
				wrongKind = append(wrongKind, fmt.Sprintf("%s: %q parses as %v", k, sql, zp.kinds))
			default:
				s.parsed++
			}
			var names []zetaName
			if zp.err == nil {
				names = zp.names
			}
			o := invCompare(sql, names)
			s.checked += o.checked
			for _, st := range o.text.Statements {
				if len(st.Unplaced) == 0 {
					if st.Kind == "" {
						t.Errorf("%s: %q: the reader reads a statement of no kind with nothing unplaced", k, sql)
					}
					acceptedKinds[st.Kind]++
				}
			}
			if zp.err == nil {
				if o.unplaced {
					s.unplaced++
				} else {
					s.known++
				}
			}
			if len(o.problems) > 0 {
				s.misses++
				misses = append(misses, fmt.Sprintf("%s: %q\n    %s", k, sql, strings.Join(o.problems, "\n    ")))
			}
		}
	}
	if s.checked < 150 {
		t.Errorf("only %d names of ZetaSQL's were compared with a statement the reader does not refuse; the statement check checks too little", s.checked)
	}
	if len(wrongKind) > 0 {
		t.Errorf("examples ZetaSQL parses as another kind than the table says (a bug in this test):\n%s", strings.Join(wrongKind, "\n"))
	}
	if len(unrepresentable) > 0 {
		t.Logf("statement examples ZetaSQL parses but go-zetasql cannot hand over (skipped): %s", strings.Join(unrepresentable, "; "))
	}
	if testing.Verbose() {
		for _, n := range notParsed {
			t.Logf("statement example ZetaSQL's grammar does not parse (skipped): %s", n)
		}
	}
	var accepted []string
	for k, n := range acceptedKinds {
		accepted = append(accepted, fmt.Sprintf("%s (%d)", k, n))
	}
	sort.Strings(accepted)
	t.Logf("statement kinds the reader reads with nothing unplaced among the examples: %s", strings.Join(accepted, ", "))
	if len(misses) > 0 {
		t.Errorf("the reader misses names ZetaSQL's tree holds in %d statement examples it does not refuse:\n%s",
			len(misses), strings.Join(limitLines(misses, 80), "\n"))
	}
	return s
}
