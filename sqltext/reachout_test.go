package sqltext

import (
	"strings"
	"testing"
)

// reference is BigQuery's reference, where each reach-out is documented.
const reference = "https://cloud.google.com/bigquery/docs/reference/standard-sql/"

// documentedReachOuts are the functions and options BigQuery's reference
// documents as naming a resource outside BigQuery's datasets, each with
// the page that documents it and a statement that uses it, and what the
// reader makes of that statement (describe; UNPLACED where a caller must
// refuse it, external where it reads or writes outside).
var documentedReachOuts = []struct {
	doc, name, sql, want string
}{
	// Functions.
	{"aead_encryption_functions#keyskeyset_chain", "KEYS.KEYSET_CHAIN",
		"SELECT AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN('gcp-kms://projects/p/locations/us/keyRings/r/cryptoKeys/k', b'\\x01'), c, '') FROM d.t",
		"SELECT Cloud KMS key:p.us.r.k table:d.t"},
	{"aead_encryption_functions#keysnew_wrapped_keyset", "KEYS.NEW_WRAPPED_KEYSET",
		"SELECT KEYS.NEW_WRAPPED_KEYSET('gcp-kms://projects/p/locations/us/keyRings/r/cryptoKeys/k', 'AEAD_AES_GCM_256')",
		"SELECT Cloud KMS key:p.us.r.k"},
	{"aead_encryption_functions#keysrotate_wrapped_keyset", "KEYS.ROTATE_WRAPPED_KEYSET",
		"SELECT KEYS.ROTATE_WRAPPED_KEYSET('gcp-kms://projects/p/locations/us/keyRings/r/cryptoKeys/k', b'\\x01', 'AEAD_AES_GCM_256')",
		"SELECT Cloud KMS key:p.us.r.k"},
	{"aead_encryption_functions#keysrewrap_keyset", "KEYS.REWRAP_KEYSET",
		"SELECT KEYS.REWRAP_KEYSET('gcp-kms://projects/p/locations/us/keyRings/r/cryptoKeys/a', 'gcp-kms://projects/q/locations/eu/keyRings/s/cryptoKeys/b', b'\\x01')",
		"SELECT Cloud KMS key:p.us.r.a Cloud KMS key:q.eu.s.b"},
	{"dlp_functions#dlp_key_chain", "DLP_KEY_CHAIN",
		"SELECT DLP_KEY_CHAIN('gcp-kms://projects/p/locations/us/keyRings/r/cryptoKeys/k', b'\\x01')",
		"SELECT Cloud KMS key:p.us.r.k"},
	{"dlp_functions#dlp_deterministic_encrypt", "DLP_DETERMINISTIC_ENCRYPT",
		"SELECT DLP_DETERMINISTIC_ENCRYPT(DLP_KEY_CHAIN('gcp-kms://projects/p/locations/us/keyRings/r/cryptoKeys/k', b'\\x01'), s, '', 'c') FROM d.t",
		"SELECT Cloud KMS key:p.us.r.k table:d.t"},
	{"dlp_functions#dlp_deterministic_decrypt", "DLP_DETERMINISTIC_DECRYPT",
		"SELECT DLP_DETERMINISTIC_DECRYPT(key_column, s, '') FROM d.t", "SELECT table:d.t UNPLACED"},
	{"federated_query_functions#external_query", "EXTERNAL_QUERY",
		"SELECT * FROM EXTERNAL_QUERY('us.pg', 'SELECT 1')", "SELECT connection:us.pg"},
	{"objectref_functions#objmake_ref", "OBJ.MAKE_REF", "SELECT OBJ.MAKE_REF('gs://b/x', 'us.c')", "SELECT connection:us.c"},
	{"objectref_functions#objfetch_metadata", "OBJ.FETCH_METADATA", "SELECT OBJ.FETCH_METADATA(r) FROM d.t", "SELECT table:d.t UNPLACED"},
	{"objectref_functions#objget_access_url", "OBJ.GET_ACCESS_URL", "SELECT OBJ.GET_ACCESS_URL(r, 'r') FROM d.t", "SELECT table:d.t UNPLACED"},
	{"objectref_functions#objget_read_url", "OBJ.GET_READ_URL", "SELECT OBJ.GET_READ_URL(r) FROM d.t", "SELECT table:d.t UNPLACED"},
	{"bigqueryml-syntax-ai-generate", "AI.GENERATE", "SELECT AI.GENERATE('x', connection_id => 'us.ai')", "SELECT connection:us.ai"},
	{"bigqueryml-syntax-ai-generate-bool", "AI.GENERATE_BOOL", "SELECT AI.GENERATE_BOOL('x')", "SELECT UNPLACED"},
	{"bigqueryml-syntax-ai-generate-double", "AI.GENERATE_DOUBLE", "SELECT AI.GENERATE_DOUBLE('x', connection_id => 'us.ai')", "SELECT connection:us.ai"},
	{"bigqueryml-syntax-ai-generate-int", "AI.GENERATE_INT", "SELECT AI.GENERATE_INT('x', connection_id => 'us.ai')", "SELECT connection:us.ai"},
	{"bigqueryml-syntax-ai-if", "AI.IF", "SELECT AI.IF('x', connection_id => 'us.ai')", "SELECT connection:us.ai"},
	{"bigqueryml-syntax-ai-score", "AI.SCORE", "SELECT AI.SCORE('x', connection_id => 'us.ai')", "SELECT connection:us.ai"},
	{"bigqueryml-syntax-ai-classify", "AI.CLASSIFY", "SELECT AI.CLASSIFY('x', ['a'], connection_id => 'us.ai')", "SELECT connection:us.ai"},
	{"bigqueryml-syntax-ai-embed", "AI.EMBED", "SELECT AI.EMBED('x', connection_id => 'us.ai')", "SELECT connection:us.ai"},
	{"bigqueryml-syntax-ai-similarity", "AI.SIMILARITY", "SELECT AI.SIMILARITY('x', 'y', connection_id => 'us.ai')", "SELECT connection:us.ai"},
	{"bigqueryml-syntax-ai-agg", "AI.AGG", "SELECT AI.AGG(s, 'x', connection_id => 'us.ai') FROM d.t", "SELECT connection:us.ai table:d.t"},
	{"geography_functions#st_regionstats", "ST_REGIONSTATS", "SELECT ST_REGIONSTATS(g, 'ee://x') FROM d.t", "SELECT table:d.t UNPLACED"},
	// Options of DDL (data-definition-language) and BigQuery ML.
	{"data-definition-language#table_option_list", "kms_key_name",
		"CREATE TABLE d.t (n INT64) OPTIONS (kms_key_name = 'projects/p/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE TABLE table!:d.t Cloud KMS key:p.us.r.k"},
	{"data-definition-language#schema_option_list", "default_kms_key_name",
		"CREATE SCHEMA d OPTIONS (default_kms_key_name = 'projects/p/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE SCHEMA dataset!:d Cloud KMS key:p.us.r.k"},
	{"bigqueryml-syntax-create-onnx", "model_path",
		"CREATE MODEL d.m OPTIONS (model_type = 'ONNX', model_path = 'gs://b/m.onnx')", "CREATE MODEL model!:d.m external"},
	{"bigqueryml-syntax-create", "model_registry",
		"CREATE MODEL d.m OPTIONS (model_type = 'LINEAR_REG', model_registry = 'VERTEX_AI') AS SELECT 1 AS label",
		"CREATE MODEL model!:d.m external"},
	{"bigqueryml-syntax-create", "vertex_ai_model_version_aliases",
		"CREATE MODEL d.m OPTIONS (model_type = 'LINEAR_REG', vertex_ai_model_version_aliases = ['a']) AS SELECT 1 AS label",
		"CREATE MODEL model!:d.m external"},
	{"bigqueryml-syntax-alter-model", "vertex_ai_model_id",
		"ALTER MODEL d.m SET OPTIONS (vertex_ai_model_id = 'm')", "ALTER MODEL model!:d.m external"},
	{"bigqueryml-syntax-create-remote-model-open", "hugging_face_model_id",
		"CREATE MODEL d.m REMOTE WITH CONNECTION DEFAULT OPTIONS (hugging_face_model_id = 'google/gemma-2b')",
		"CREATE MODEL model!:d.m connection:DEFAULT external"},
	{"bigqueryml-syntax-create-remote-model-open", "model_garden_model_name",
		"CREATE MODEL d.m REMOTE WITH CONNECTION DEFAULT OPTIONS (model_garden_model_name = 'publishers/google/models/gemma3')",
		"CREATE MODEL model!:d.m connection:DEFAULT external"},
	{"bigqueryml-syntax-create-remote-model", "endpoint",
		"CREATE MODEL d.m REMOTE WITH CONNECTION `p.us.c` OPTIONS (endpoint = 'https://x.example/v1')",
		"CREATE MODEL model!:d.m connection:p.us.c"},
	{"data-definition-language#external_table_option_list", "uris",
		"CREATE EXTERNAL TABLE d.e OPTIONS (format = 'CSV', uris = ['gs://b/*.csv'])", "CREATE EXTERNAL TABLE table!:d.e external"},
	{"data-definition-language#external_table_option_list", "hive_partition_uri_prefix",
		"CREATE TABLE d.e (n INT64) OPTIONS (hive_partition_uri_prefix = 'gs://b/p')", "CREATE TABLE table!:d.e external"},
	{"data-definition-language#external_table_option_list", "reference_file_schema_uri",
		"CREATE TABLE d.e (n INT64) OPTIONS (reference_file_schema_uri = 'gs://b/s.avro')", "CREATE TABLE table!:d.e external"},
	{"data-definition-language#create_table_statement", "storage_uri",
		"CREATE TABLE d.i (n INT64) WITH CONNECTION `p.us.c` OPTIONS (file_format = 'PARQUET', table_format = 'ICEBERG', storage_uri = 'gs://b/i')",
		"CREATE TABLE table!:d.i connection:p.us.c external"},
	{"data-definition-language#create_function_statement", "library",
		"CREATE FUNCTION d.f(x STRING) RETURNS STRING LANGUAGE js OPTIONS (library = ['gs://b/l.js']) AS r'return x'",
		"CREATE FUNCTION routine!:d.f external"},
	{"user-defined-functions-python", "packages",
		"CREATE FUNCTION d.f(x STRING) RETURNS STRING LANGUAGE python OPTIONS (runtime_version = 'python-3.11', entry_point = 'f', packages = ['pandas']) AS r'def f(x): return x'",
		"CREATE FUNCTION routine!:d.f external"},
	{"data-definition-language#create_procedure", "main_file_uri",
		"CREATE PROCEDURE d.p() WITH CONNECTION `p.us.s` OPTIONS (engine = 'SPARK', main_file_uri = 'gs://b/m.py') LANGUAGE PYTHON",
		"CREATE PROCEDURE routine!:d.p connection:p.us.s external"},
	{"data-definition-language#create_procedure", "py_file_uris",
		"CREATE PROCEDURE d.p() WITH CONNECTION `p.us.s` OPTIONS (engine = 'SPARK', py_file_uris = ['gs://b/m.py']) LANGUAGE PYTHON AS r'x'",
		"CREATE PROCEDURE routine!:d.p connection:p.us.s external"},
	{"data-definition-language#create_procedure", "jar_uris",
		"CREATE PROCEDURE d.p() WITH CONNECTION `p.us.s` OPTIONS (engine = 'SPARK', jar_uris = ['gs://b/m.jar']) LANGUAGE SCALA",
		"CREATE PROCEDURE routine!:d.p connection:p.us.s external"},
	{"data-definition-language#create_procedure", "file_uris",
		"CREATE PROCEDURE d.p() WITH CONNECTION `p.us.s` OPTIONS (engine = 'SPARK', file_uris = ['gs://b/f']) LANGUAGE PYTHON AS r'x'",
		"CREATE PROCEDURE routine!:d.p connection:p.us.s external"},
	{"data-definition-language#create_procedure", "archive_uris",
		"CREATE PROCEDURE d.p() WITH CONNECTION `p.us.s` OPTIONS (engine = 'SPARK', archive_uris = ['gs://b/a.zip']) LANGUAGE PYTHON AS r'x'",
		"CREATE PROCEDURE routine!:d.p connection:p.us.s external"},
	{"data-definition-language#create_procedure", "container_image",
		"CREATE PROCEDURE d.p() WITH CONNECTION `p.us.s` OPTIONS (engine = 'SPARK', container_image = 'us-docker.pkg.dev/p/r/i') LANGUAGE PYTHON AS r'x'",
		"CREATE PROCEDURE routine!:d.p connection:p.us.s external"},
	{"export-statements", "uri",
		"EXPORT DATA OPTIONS (uri = 'gs://b/x/*.csv', format = 'CSV') AS SELECT 1", "EXPORT DATA export:gs://b/x/*.csv"},
}

// TestReachOutsCoverTheReference holds the reach-out inventory to what
// BigQuery's reference documents (issue 35), both ways: every documented
// function and option that names a resource outside BigQuery's datasets
// is in reachFunctions or reachOptions and read as documentedReachOuts
// says, and the inventory holds nothing the table does not.
func TestReachOutsCoverTheReference(t *testing.T) {
	documented := map[string]bool{}
	for _, c := range documentedReachOuts {
		documented[c.name] = true
		_, fn := reachFunctions[c.name]
		_, opt := reachOptions[c.name]
		if !fn && !opt {
			t.Errorf("%s (%s%s) is not in the reach-out inventory", c.name, reference, c.doc)
		}
		if fn && knownFunctions[c.name] != reachFunctions[c.name] {
			t.Errorf("%s: knownFunctions does not hold the inventory's entry", c.name)
		}
		text := Parse(c.sql)
		if len(text.Statements) != 1 {
			t.Errorf("%s: %d statements", c.sql, len(text.Statements))
			continue
		}
		if got := describe(text.Statements[0]); got != c.want {
			t.Errorf("%s (%s)\n got %s\nwant %s (%q)", c.sql, c.name, got, c.want, text.Statements[0].Unplaced)
		}
	}
	for n := range reachFunctions {
		if !documented[n] {
			t.Errorf("reachFunctions has %s, which documentedReachOuts does not list with its reference", n)
		}
	}
	for n := range reachOptions {
		if !documented[n] {
			t.Errorf("reachOptions has %s, which documentedReachOuts does not list with its reference", n)
		}
	}
}

// TestKMSKeysWherever: a Cloud KMS key is read in every position a
// function call can be (a subquery, pipe operators, DML, CTAS, a
// procedure's body, EXPORT DATA, a temporary function), in every spelling
// (case, quoting, comments, escapes, raw strings, named arguments); a key
// given any other way than a string literal naming a key is unplaced.
func TestKMSKeysWherever(t *testing.T) {
	const k = "'gcp-kms://projects/o/locations/us/keyRings/r/cryptoKeys/k'"
	call := "KEYS.KEYSET_CHAIN(" + k + ", b'\\x01')"
	for _, sql := range []string{
		"SELECT " + call,
		"SELECT * FROM d.t WHERE x IN (SELECT KEYS.KEYSET_LENGTH(" + call + "))",
		"SELECT * FROM d.t |> EXTEND " + call + " AS ks",
		"FROM d.t |> WHERE AEAD.DECRYPT_STRING(" + call + ", c, '') = 'x'",
		"FROM d.t |> AGGREGATE COUNT(" + call + ") AS n",
		"FROM d.t |> SELECT " + call + " AS ks",
		"FROM d.t |> SET c = AEAD.ENCRYPT(" + call + ", s, '')",
		"INSERT INTO d.t (k) SELECT " + call,
		"UPDATE d.t SET s = AEAD.DECRYPT_STRING(" + call + ", c, '') WHERE TRUE",
		"MERGE d.t T USING (SELECT " + call + " AS k) S ON FALSE WHEN NOT MATCHED THEN INSERT (k) VALUES (S.k)",
		"DELETE FROM d.t WHERE AEAD.DECRYPT_STRING(" + call + ", c, '') = 'x'",
		"CREATE TABLE d.u AS SELECT " + call + " AS k",
		"CREATE VIEW d.v AS SELECT " + call + " AS k",
		"CREATE PROCEDURE d.p() BEGIN SELECT " + call + "; END",
		"CREATE PROCEDURE d.p() BEGIN DECLARE ks DEFAULT " + call + "; SELECT ks; END",
		"EXPORT DATA OPTIONS (uri = 'gs://b/x/*') AS SELECT " + call,
		"SELECT * FROM d.t |> EXPORT DATA OPTIONS (uri = 'gs://b/x/*') AS SELECT " + call,
		"CREATE TEMP FUNCTION f() AS (" + call + "); SELECT f()",
		"select aead.decrypt_string(keys.keyset_chain(" + k + ", b'\\x01'), c, '') from d.t",
		"SELECT `KEYS.KEYSET_CHAIN`(" + k + ", b'\\x01')",
		"SELECT `keys`.`keyset_chain`(" + k + ", b'\\x01')",
		"SELECT SAFE.KEYS.KEYSET_CHAIN(" + k + ", b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN /* a */ ( -- b\n " + k + " /* c */ , b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(r'gcp-kms://projects/o/locations/us/keyRings/r/cryptoKeys/k', b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(\"\"\"gcp-kms://projects/o/locations/us/keyRings/r/cryptoKeys/k\"\"\", b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN('gcp-kms://projects/\\x6f/locations/us/keyRings/r/cryptoKeys/\\u006b', b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(kms_resource_name => " + k + ", first_level_keyset => b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(first_level_keyset => b'\\x01', KMS_RESOURCE_NAME => " + k + ")",
		"CREATE TABLE d.u (n INT64) OPTIONS (kms_key_name = 'projects/o/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE TABLE d.u (n INT64) OPTIONS (description = 'x', `Kms_Key_Name` = 'projects/o/locations/us/keyRings/r/cryptoKeys/k')",
		"ALTER TABLE d.t SET OPTIONS (kms_key_name = 'projects/o/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE PROCEDURE d.p() BEGIN CREATE TABLE d.u (n INT64) OPTIONS (kms_key_name = 'projects/o/locations/us/keyRings/r/cryptoKeys/k'); END",
	} {
		st := Parse(sql).Statements
		if len(st) != 1 || len(st[0].Unplaced) > 0 || !strings.Contains(describe(st[0]), "Cloud KMS key:o.us.r.k") {
			t.Errorf("%s: %s, want the key o.us.r.k placed", sql, describeAll(st))
		}
	}
	for _, sql := range []string{
		"SELECT KEYS.KEYSET_CHAIN(@key, b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(?, b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(k, b'\\x01') FROM d.t",
		"SELECT KEYS.KEYSET_CHAIN(CONCAT('gcp-kms://projects/o/', 'locations/us/keyRings/r/cryptoKeys/k'), b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(" + k + " || '', b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN((" + k + "), b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(b'gcp-kms://projects/o/locations/us/keyRings/r/cryptoKeys/k', b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN('gcp-kms://projects/o/locations/us/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1', b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN('projects/o', b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN()",
		"SELECT KEYS.KEYSET_CHAIN(first_level_keyset => b'\\x01', kms => " + k + ")",
		"SELECT KEYS.REWRAP_KEYSET(" + k + ", @other, b'\\x01')",
		"SELECT DLP_KEY_CHAIN(@k, b'\\x01')",
		"SELECT DLP_DETERMINISTIC_ENCRYPT(@key, s, '') FROM d.t",
		"SELECT DLP_DETERMINISTIC_ENCRYPT(key => DLP_KEY_CHAIN(" + k + ", b'\\x01'), s, '') FROM d.t",
		"CREATE TABLE d.u (n INT64) OPTIONS (kms_key_name = @key)",
		"CREATE TABLE d.u (n INT64) OPTIONS (kms_key_name = CONCAT('projects/o/locations/us/', 'keyRings/r/cryptoKeys/k'))",
		"CREATE PROCEDURE d.p(k STRING) BEGIN CREATE TABLE d.u (n INT64) OPTIONS (kms_key_name = k); END",
	} {
		if st := Parse(sql).Statements; len(st) != 1 || len(st[0].Unplaced) == 0 {
			t.Errorf("%s: %s, want it unplaced", sql, describeAll(st))
		}
	}
}

// TestProcedureBodiesAtTheTopLevel: a procedure's body that sets a system
// variable which changes what its names mean, where its jobs run or how
// they are billed, or that calls a procedure, is unplaced; @@time_zone,
// and reading system variables, are not.
func TestProcedureBodiesAtTheTopLevel(t *testing.T) {
	for _, sql := range []string{
		"CREATE PROCEDURE d.p() BEGIN SET @@dataset_id = 'secret'; DELETE FROM t WHERE TRUE; END",
		"CREATE PROCEDURE d.p() BEGIN SET @@dataset_project_id = 'other'; SELECT * FROM d.t; END",
		"CREATE PROCEDURE d.p() BEGIN SET (@@dataset_project_id, @@dataset_id) = ('other', 'secret'); SELECT * FROM t; END",
		"CREATE PROCEDURE d.p() BEGIN SET (x, @@dataset_id) = ('a', 'secret'); SELECT * FROM t; END",
		"CREATE OR REPLACE PROCEDURE d.p() BEGIN set @@Dataset_Id = 'secret'; SELECT * FROM t; END",
		"CREATE PROCEDURE d.p() BEGIN SET @@location = 'EU'; SELECT 1; END",
		"CREATE PROCEDURE d.p() BEGIN SET @@reservation = 'projects/o/locations/us/reservations/r'; SELECT 1; END",
		"CREATE PROCEDURE d.p() BEGIN SET @@query_label = 'mcp_tool:x'; SELECT 1; END",
		"CREATE PROCEDURE d.p() BEGIN SET @@ = 'x'; SELECT 1; END",
		"CREATE PROCEDURE d.p() BEGIN CALL d.q(); END",
		"CREATE PROCEDURE d.p() BEGIN SELECT 1; call `d.q`(); END",
		"CREATE PROCEDURE d.p() BEGIN EXECUTE IMMEDIATE 'SELECT 1'; END",
	} {
		if st := Parse(sql).Statements; len(st) != 1 || len(st[0].Unplaced) == 0 {
			t.Errorf("%s: %s, want it unplaced", sql, describeAll(st))
		}
	}
	for _, sql := range []string{
		"CREATE PROCEDURE d.p() BEGIN SET @@time_zone = 'Europe/Berlin'; SELECT * FROM d.t; END",
		"CREATE PROCEDURE d.p() BEGIN DECLARE x STRING DEFAULT @@dataset_id; SET x = @@dataset_project_id; SELECT x; END",
		"CREATE PROCEDURE d.p(OUT n INT64) BEGIN SET n = (SELECT COUNT(*) FROM d.t); END",
	} {
		if st := Parse(sql).Statements; len(st) != 1 || len(st[0].Unplaced) > 0 {
			t.Errorf("%s: %s, want it read", sql, describeAll(st))
		}
	}
}

// describeAll describes each statement.
func describeAll(st []Statement) string {
	var out []string
	for _, s := range st {
		out = append(out, describe(s)+" "+strings.Join(s.Unplaced, "; "))
	}
	return strings.Join(out, " | ")
}
