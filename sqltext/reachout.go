package sqltext

import (
	"math/bits"
	"strings"
)

// The reach-outs: every way a statement names a resource outside
// BigQuery's datasets, which BigQuery reaches with the job's credentials
// in any project. It is one inventory, taken from BigQuery's reference
// (the DDL statements' option lists, the EXPORT DATA and LOAD DATA
// statements, the AEAD, DLP, ObjectRef and generative AI functions,
// EXTERNAL_QUERY, ST_REGIONSTATS), and TestReachOutsCoverTheReference
// holds it to a table of what that reference documents. Each reach-out
// is placed (a connection or a Cloud KMS key becomes an Object the
// caller checks against its lists; an EXPORT's uri an ExportURI), or
// explained in External; what the reader cannot place (a key given as a
// parameter or an expression, an option value that names an unknown kind
// of resource) is unplaced, so a caller that must account for every name
// refuses it.

// reachFunctions are the functions whose arguments name something outside
// BigQuery's datasets, by upper-case name; knownFunctions holds them with
// the functions that name objects inside.
var reachFunctions = func() map[string]function {
	m := map[string]function{
		// A connection to another database (Cloud SQL, Spanner, AlloyDB)
		// or to Cloud Storage, by name.
		"EXTERNAL_QUERY": {table: true, args: argsConnectionAt, connectionArg: 0},
		"OBJ.MAKE_REF":   {args: argsConnectionAt, connectionArg: 1},
		// Earth Engine rasters.
		"ST_REGIONSTATS": {args: argsEarthEngine},
		// Cloud KMS keys, as 'gcp-kms://projects/…/cryptoKeys/k' (AEAD
		// encryption functions, DLP encryption functions).
		"KEYS.KEYSET_CHAIN":          {args: argsKMSKeys, kmsArgs: 1},
		"KEYS.NEW_WRAPPED_KEYSET":    {args: argsKMSKeys, kmsArgs: 1},
		"KEYS.ROTATE_WRAPPED_KEYSET": {args: argsKMSKeys, kmsArgs: 1},
		"KEYS.REWRAP_KEYSET":         {args: argsKMSKeys, kmsArgs: 1 | 2},
		"DLP_KEY_CHAIN":              {args: argsKMSKeys, kmsArgs: 1},
		// Their key is serialized BYTES from DLP_KEY_CHAIN, which names
		// the KMS key: a key that is not that call here may carry any key
		// in the data.
		"DLP_DETERMINISTIC_ENCRYPT": {args: argsKeyChain},
		"DLP_DETERMINISTIC_DECRYPT": {args: argsKeyChain},
	}
	// ObjectRefs, whose authorizer (a connection) is data.
	for _, n := range strings.Fields(`OBJ.FETCH_METADATA OBJ.GET_ACCESS_URL OBJ.GET_READ_URL`) {
		m[n] = function{args: argsObjectRef}
	}
	// Model endpoints, reached with the caller's credentials unless a
	// connection_id names the connection.
	for _, n := range strings.Fields(`AI.GENERATE AI.GENERATE_BOOL AI.GENERATE_DOUBLE AI.GENERATE_INT AI.IF
		AI.SCORE AI.CLASSIFY AI.EMBED AI.SIMILARITY AI.AGG`) {
		m[n] = function{args: argsConnectionNamed}
	}
	return m
}()

// The argument kinds of the functions that name Cloud KMS keys (function.args).
const (
	// argsKMSKeys: the arguments at the positions of kmsArgs (or named
	// kmsArgNames) are Cloud KMS keys, as string literals.
	argsKMSKeys argKind = argsEarthEngine + 1 + iota
	// argsKeyChain: the first argument is a DLP_KEY_CHAIN call.
	argsKeyChain
)

// kmsArgNames are the names of the KMS key arguments, as a named argument
// (name => value) would spell them.
var kmsArgNames = map[string]bool{"kms_resource_name": true, "source_kms_resource_name": true, "target_kms_resource_name": true}

// reach is what one documented option names outside BigQuery's datasets.
type reach uint8

const (
	// reachKMSKey: a Cloud KMS key ('projects/…/cryptoKeys/k'), placed as
	// a KMSKey object.
	reachKMSKey reach = iota + 1
	// reachFiles: files BigQuery reads or writes outside its datasets
	// (Cloud Storage, Artifact Registry, PyPI): External.
	reachFiles
	// reachVertex: a model registered or deployed in Vertex AI: External.
	reachVertex
	// reachExport: an EXPORT DATA or EXPORT MODEL destination, placed as
	// an ExportURI.
	reachExport
	// reachConnection: a place reached through the statement's
	// connection (WITH CONNECTION), which is placed and checked itself.
	reachConnection
)

// reachOption is one documented option that names a resource.
type reachOption struct {
	reach reach
	// what explains an External reach.
	what string
}

// reachOptions are the documented options (OPTIONS (name = value)) whose
// value names a resource outside BigQuery's datasets, by lower-case name.
// An option that is not here and whose value is a string that names a
// resource anyway (a URI, a resource path) is unplaced (optionValue).
var reachOptions = map[string]reachOption{
	// CREATE TABLE, CREATE SCHEMA, CREATE MODEL, ALTER … SET OPTIONS.
	"kms_key_name":         {reach: reachKMSKey},
	"default_kms_key_name": {reach: reachKMSKey},
	// CREATE MODEL of an imported model (ONNX, TENSORFLOW,
	// TENSORFLOW_LITE, XGBOOST).
	"model_path": {reachFiles, "an imported model is read from Cloud Storage, outside BigQuery's datasets"},
	// CREATE MODEL and ALTER MODEL: Vertex AI Model Registry, and open
	// models deployed to Vertex AI endpoints.
	"model_registry":                  {reachVertex, "model_registry registers the model in Vertex AI, outside BigQuery's datasets"},
	"vertex_ai_model_id":              {reachVertex, "vertex_ai_model_id registers the model in Vertex AI, outside BigQuery's datasets"},
	"vertex_ai_model_version_aliases": {reachVertex, "vertex_ai_model_version_aliases registers the model in Vertex AI, outside BigQuery's datasets"},
	"hugging_face_model_id":           {reachVertex, "hugging_face_model_id deploys a model to a Vertex AI endpoint, outside BigQuery's datasets"},
	"model_garden_model_name":         {reachVertex, "model_garden_model_name deploys a model to a Vertex AI endpoint, outside BigQuery's datasets"},
	// CREATE EXTERNAL TABLE, LOAD DATA, CREATE TABLE … WITH CONNECTION
	// (BigLake tables).
	"uris":                      {reachFiles, "uris names files outside BigQuery's datasets"},
	"hive_partition_uri_prefix": {reachFiles, "hive_partition_uri_prefix names files outside BigQuery's datasets"},
	"reference_file_schema_uri": {reachFiles, "reference_file_schema_uri names a file outside BigQuery's datasets"},
	"storage_uri":               {reachFiles, "storage_uri names a Cloud Storage folder outside BigQuery's datasets"},
	// CREATE FUNCTION (JavaScript libraries, Python packages) and CREATE
	// PROCEDURE for Apache Spark.
	"library":         {reachFiles, "a JavaScript library is read from Cloud Storage, outside BigQuery's datasets"},
	"packages":        {reachFiles, "a Python function's packages are installed from outside BigQuery"},
	"main_file_uri":   {reachFiles, "a Spark procedure's main_file_uri is read from outside BigQuery's datasets"},
	"py_file_uris":    {reachFiles, "a Spark procedure's py_file_uris are read from outside BigQuery's datasets"},
	"jar_uris":        {reachFiles, "a Spark procedure's jar_uris are read from outside BigQuery's datasets"},
	"file_uris":       {reachFiles, "a Spark procedure's file_uris are read from outside BigQuery's datasets"},
	"archive_uris":    {reachFiles, "a Spark procedure's archive_uris are read from outside BigQuery's datasets"},
	"container_image": {reachFiles, "a Spark procedure's container_image is pulled from outside BigQuery's datasets"},
	// EXPORT DATA, EXPORT MODEL.
	"uri": {reach: reachExport},
	// Remote functions and models: the endpoint is reached through the
	// statement's connection.
	"endpoint": {reach: reachConnection},
}

// freeText are the options whose string values are prose that may hold a
// URL without naming a resource BigQuery reaches.
var freeText = map[string]bool{"description": true, "friendly_name": true}

// option reads the option whose name is at i of an OPTIONS list (name =
// value) and returns where to go on and whether it did. An option of
// reachOptions is placed or explained; any other whose value is a string
// literal naming a resource (optionValue) is unplaced.
func (r *reader) option(toks []token, i int) (int, bool) {
	if i == 0 || i+2 >= len(toks) || !toks[i+1].isPunct('=') || toks[i+2].isPunct('>') ||
		!toks[i-1].isPunct('(') && !toks[i-1].isPunct(',') {
		return 0, false
	}
	var buf [32]byte
	v := r.src.value(toks[i])
	if len(v) > len(buf) {
		return 0, false // no option has so long a name
	}
	name := lowerInto(buf[:0], v)
	o, ok := reachOptions[string(name)]
	switch {
	case !ok:
		if !freeText[string(name)] && r.namesResource(toks, i+2) {
			r.unplaced("the option " + string(name) + " names a resource outside BigQuery's datasets that this server does not know")
		}
		return 0, false
	case o.reach == reachKMSKey:
		if next, ok := r.kmsKey(toks, i+2, "the option "+string(name)); ok {
			return next, true
		}
	case o.reach == reachExport:
		if r.exporting {
			return r.exportURI(toks, i+2), true
		}
		if r.namesResource(toks, i+2) {
			r.unplaced("the option uri names a resource outside BigQuery's datasets outside an EXPORT")
		}
	case o.reach == reachFiles || o.reach == reachVertex:
		r.st.External = append(r.st.External, o.what)
	}
	return i + 2, true
}

// namesResource reports whether the token at i is a string literal whose
// value names a resource: a URI (gs://…, https://…, and the one-slash
// google-cloudspanner:/projects/… of external datasets) or a resource path
// (projects/…).
func (r *reader) namesResource(toks []token, i int) bool {
	v, _, ok := stringAt(r.src, toks, i, &r.steps)
	return ok && (strings.Contains(v, ":/") || strings.HasPrefix(v, "projects/"))
}

// kmsArgument reads the argument at i of a call whose function names
// Cloud KMS keys (argsKMSKeys): a key at one of the positions of
// fn.kmsArgs, or a named argument of kmsArgNames. It returns where to go
// on and whether it consumed the argument.
func (r *reader) kmsArgument(toks []token, i int, c *callState) (int, bool) {
	if toks[i].isPunct(')') || toks[i].isPunct(',') {
		return 0, false
	}
	if namedArgument(toks, i) {
		var buf [32]byte
		if t := r.src.text(toks[i]); len(t) > len(buf) || !kmsArgNames[string(lowerInto(buf[:0], t))] {
			return 0, false
		}
		i += 3
	} else if c.arg >= 8 || c.fn.kmsArgs&(1<<c.arg) == 0 {
		return 0, false
	}
	c.keys++
	return r.kmsKey(toks, i, c.name)
}

// kmsKey reads the Cloud KMS key named at i by what: a string literal, and
// nothing else, that holds a key's resource name.
func (r *reader) kmsKey(toks []token, i int, what string) (int, bool) {
	v, next, ok := stringAt(r.src, toks, i, &r.steps)
	if !ok || next < len(toks) && !toks[next].isPunct(',') && !toks[next].isPunct(')') {
		r.unplaced(what + " names a Cloud KMS key by something other than a string literal")
		return 0, false
	}
	path, ok := kmsKeyPath(v, &r.steps)
	if !ok {
		r.unplaced(what + " names a Cloud KMS key in a form this server cannot read")
		return 0, false
	}
	r.add(KMSKey, path, false)
	return next, true
}

// kmsKeyPath reads a Cloud KMS key's resource name,
// [gcp-kms://]projects/p/locations/l/keyRings/r/cryptoKeys/k, as [p l r
// k]. It adds its work to *steps.
func kmsKeyPath(v string, steps *int) ([]string, bool) {
	v = strings.TrimPrefix(v, "gcp-kms://")
	parts := strings.Split(v, "/")
	*steps += len(parts)
	if len(parts) != 8 || parts[0] != "projects" || parts[2] != "locations" || parts[4] != "keyRings" || parts[6] != "cryptoKeys" {
		return nil, false
	}
	path := []string{parts[1], parts[3], parts[5], parts[7]}
	for _, p := range path {
		if p == "" {
			return nil, false
		}
	}
	return path, true
}

// keyChainArgument checks the first argument of DLP_DETERMINISTIC_ENCRYPT
// and _DECRYPT (argsKeyChain): a DLP_KEY_CHAIN(…) call, which is read as
// any call is, or the key is unplaced.
func (r *reader) keyChainArgument(toks []token, i int, c *callState) {
	if c.arg != 0 || c.keys > 0 {
		return
	}
	c.keys++
	j := i
	if j+1 < len(toks) && r.isWord(toks, j, "SAFE") && toks[j+1].isPunct('.') {
		j += 2
	}
	if j+1 < len(toks) && toks[j].kind() == Word && strings.EqualFold(r.src.text(toks[j]), "DLP_KEY_CHAIN") && toks[j+1].isPunct('(') {
		return
	}
	r.unplaced("the key of " + c.name + " is not a DLP_KEY_CHAIN call, so the Cloud KMS key it uses cannot be read")
}

// endReach checks, as a call's ')' closes its frame, that a function that
// names Cloud KMS keys named each one this server can read.
func (r *reader) endReach(c *callState) {
	switch c.fn.args {
	case argsKMSKeys:
		if int(c.keys) < bits.OnesCount8(c.fn.kmsArgs) {
			r.unplaced(c.name + " names no Cloud KMS key this server can read")
		}
	case argsKeyChain:
		if c.keys == 0 {
			r.unplaced(c.name + " has no key this server can read")
		}
	}
}

// lowerInto appends w, lower-cased (ASCII), to b.
func lowerInto(b []byte, w string) []byte {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}
