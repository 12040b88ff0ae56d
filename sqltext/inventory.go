package sqltext

import "strings"

// The inventory: what the reader knows of GoogleSQL's functions and
// clauses that name objects, connections or places outside BigQuery's
// datasets. It is the reader's whole knowledge, kept in one place so that
// integration_test's ZetaSQL check (TestInventoryAgainstZetaSQL) can hold
// it to the reference parser: a function in a namespace that reaches
// objects (ML., AI., OBJ.) or a table-valued function that is not listed
// here is unplaced, never guessed at.

// argKind says how a known function's arguments name things.
type argKind uint8

const (
	// argsExpressions: the arguments are expressions, and any object among
	// them arrives as TABLE x, MODEL x or a subquery, which the scan reads
	// wherever they are.
	argsExpressions argKind = iota
	// argsConnectionAt: the argument at connectionArg is a connection, as a
	// string literal or a path ('us.conn', `p.us.conn`), or the
	// connection_id named argument.
	argsConnectionAt
	// argsConnectionNamed: the connection, if any, is the connection_id
	// named argument; without one the function reaches its endpoint with
	// the caller's own credentials.
	argsConnectionNamed
	// argsObjectRef: an argument is an ObjectRef, whose authorizer names a
	// connection that only the data knows.
	argsObjectRef
	// argsGraphAt: the first argument names a property graph, as a string
	// literal or a path (GRAPH_EXPAND).
	argsGraphAt
	// argsEarthEngine: an argument names an Earth Engine raster, read with
	// the job's credentials outside BigQuery's datasets (ST_REGIONSTATS).
	argsEarthEngine
)

// function is one known function.
type function struct {
	// table is set for a table-valued function (a from-item).
	table bool
	args  argKind
	// connectionArg is the position of the connection argument for
	// argsConnectionAt.
	connectionArg int
	// kmsArgs has bit n set when argument n is a Cloud KMS key
	// (argsKMSKeys).
	kmsArgs uint8
}

// knownFunctions are BigQuery's functions in the namespaces that reach
// objects (ML., AI., OBJ.), its table-valued functions and the functions
// that reach outside its datasets, by upper-case name. A call of ML.x, AI.x
// or OBJ.x, or a from-item call of an unqualified name, that is not listed
// is unplaced; the functions that only compute are builtinFunctions.
var knownFunctions = func() map[string]function {
	m := map[string]function{}
	tvf := func(names string) {
		for _, n := range strings.Fields(names) {
			m[n] = function{table: true}
		}
	}
	scalar := func(names string) {
		for _, n := range strings.Fields(names) {
			m[n] = function{}
		}
	}
	// Table-valued functions whose objects are TABLE x, MODEL x or
	// subqueries (BigQuery ML's and the built-in TVFs).
	tvf(`ML.PREDICT ML.EVALUATE ML.EXPLAIN_PREDICT ML.FORECAST ML.EXPLAIN_FORECAST ML.DETECT_ANOMALIES
		ML.WEIGHTS ML.ADVANCED_WEIGHTS ML.FEATURE_INFO ML.TRAINING_INFO ML.TRIAL_INFO ML.CONFUSION_MATRIX
		ML.ROC_CURVE ML.RECOMMEND ML.GENERATE_TEXT ML.GENERATE_EMBEDDING ML.GENERATE_TABLE ML.UNDERSTAND_TEXT
		ML.TRANSLATE ML.PROCESS_DOCUMENT ML.TRANSCRIBE ML.ANNOTATE_IMAGE ML.CENTROIDS ML.PRINCIPAL_COMPONENTS
		ML.PRINCIPAL_COMPONENT_INFO ML.ARIMA_COEFFICIENTS ML.ARIMA_EVALUATE ML.GLOBAL_EXPLAIN
		ML.FEATURE_IMPORTANCE ML.RECONSTRUCTION_LOSS ML.VALIDATE_DATA_DRIFT ML.VALIDATE_DATA_SKEW
		ML.TFDV_DESCRIBE ML.TFDV_VALIDATE ML.DESCRIBE_DATA ML.GET_INSIGHTS ML.HOLIDAY_INFO ML.TRANSFORM
		ML.ENTITY_FEATURES_AT_TIME ML.FEATURES_AT_TIME ML.GENERATE_TEXT_EMBEDDING
		AI.GENERATE_TABLE AI.FORECAST AI.DETECT_ANOMALIES AI.EVALUATE AI.GENERATE_EMBEDDING AI.GENERATE_TEXT
		AI.SEARCH AI.KEY_DRIVERS AI.PREDICT
		VECTOR_SEARCH APPENDS CHANGES GAP_FILL EXTERNAL_OBJECT_TRANSFORM RANGE_SESSIONIZE VECTOR_INDEX.STATISTICS`)
	m["GRAPH_EXPAND"] = function{table: true, args: argsGraphAt}
	// Scalar functions of ML. that compute on their arguments.
	scalar(`ML.FEATURE_CROSS ML.POLYNOMIAL_EXPAND ML.BUCKETIZE ML.QUANTILE_BUCKETIZE ML.HASH_BUCKETIZE
		ML.MIN_MAX_SCALER ML.STANDARD_SCALER ML.MAX_ABS_SCALER ML.ROBUST_SCALER ML.NORMALIZER ML.IMPUTER
		ML.ONE_HOT_ENCODER ML.LABEL_ENCODER ML.MULTI_HOT_ENCODER ML.NGRAMS ML.BAG_OF_WORDS ML.TF_IDF
		ML.DISTANCE ML.LP_NORM ML.CONVERT_COLOR_SPACE ML.CONVERT_IMAGE_TYPE ML.CONVERT_IMAGE_VALUE_TYPE
		ML.RESIZE_IMAGE ML.DECODE_IMAGE`)
	// Functions that reach outside BigQuery's datasets: through a
	// connection, an ObjectRef, Cloud KMS keys, Earth Engine (the
	// reach-out inventory, reachout.go).
	for n, fn := range reachFunctions {
		m[n] = fn
	}
	return m
}()

// objectNamespaces are the function namespaces whose functions can reach
// objects, connections or endpoints: only their known functions are read.
var objectNamespaces = map[string]bool{"ML": true, "AI": true, "OBJ": true}

// builtinNamespaces are the prefixes of BigQuery's own functions
// (NET.HOST, ML.PREDICT, KEYS.NEW_KEYSET, …); SAFE. may precede any.
var builtinNamespaces = map[string]bool{
	"NET": true, "ML": true, "AI": true, "KEYS": true, "AEAD": true, "HLL_COUNT": true, "KLL_QUANTILES": true,
	"OBJ": true, "VECTOR_INDEX": true,
}

// sourceClauses are the clauses of DDL that name the object a statement
// reads from, after the statement's own name (checked against BigQuery's
// DDL reference: CREATE TABLE … CLONE/COPY/LIKE, CREATE SNAPSHOT TABLE …
// CLONE, CREATE MATERIALIZED VIEW … AS REPLICA OF, FOREIGN KEY …
// REFERENCES). Each is one or two words, then the object's path.
var sourceClauses = []string{"CLONE", "COPY", "LIKE", "REFERENCES", "REPLICA OF"}

// sourceClauseWords are sourceClauses split into words once: sourceClause
// runs at every keyword.
var sourceClauseWords = func() [][]string {
	var words [][]string
	for _, c := range sourceClauses {
		words = append(words, strings.Fields(c))
	}
	return words
}()

// sourceClause reads the object a source clause at i names (CREATE TABLE x
// CLONE y, … AS REPLICA OF y).
//
// kw is keywordOf the word at i (every clause's words are keywords).
func (r *reader) sourceClause(toks []token, i int, kw string) (int, bool) {
	if kw == "" {
		return 0, false
	}
	for _, words := range sourceClauseWords {
		if words[0] != kw || i+len(words) > len(toks) {
			continue
		}
		match := true
		for k, w := range words {
			match = match && r.isWord(toks, i+k, w)
		}
		if !match || words[0] == "LIKE" && !r.isDDL() {
			continue // not this clause, or the LIKE operator
		}
		return r.object(toks, i+len(words), Table, false), true
	}
	return 0, false
}
