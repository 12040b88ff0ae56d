package integration_test

import (
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// Issue 35's fourth round: Cloud KMS keys, imported models, Vertex AI and
// procedure bodies that move the default dataset, against the built
// binary and against ZetaSQL.

const (
	fourthOtherKey  = "'gcp-kms://projects/other/locations/us/keyRings/r/cryptoKeys/k'"
	fourthListedKey = "'gcp-kms://projects/p/locations/us/keyRings/pii/cryptoKeys/email'"
)

// fourthRoundQueries are the attacks a single query can make (read-only
// servers see them too), and fourthRoundWrites those that need
// --allow-writes to be more than the read-only guard's business.
var (
	fourthRoundQueries = []string{
		"SELECT AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01'), name, 'aad') FROM sales.orders",
		"SELECT keys.new_wrapped_keyset(" + fourthOtherKey + ", 'AEAD_AES_GCM_256')",
		"SELECT SAFE.KEYS.ROTATE_WRAPPED_KEYSET(" + fourthOtherKey + ", b'\\x01', 'AEAD_AES_GCM_256')",
		"SELECT KEYS.REWRAP_KEYSET(" + fourthListedKey + ", " + fourthOtherKey + ", b'\\x01')",
		"SELECT DLP_DETERMINISTIC_ENCRYPT(DLP_KEY_CHAIN(" + fourthOtherKey + ", b'\\x01'), name, '', 'ctx') FROM sales.orders",
		"SELECT DLP_DETERMINISTIC_DECRYPT(name, name, '') FROM sales.orders",
		"SELECT `KEYS.KEYSET_CHAIN`(/* k */ " + fourthOtherKey + ", b'\\x01') AS k",
		"SELECT `keys`.keyset_chain(r'gcp-kms://projects/other/locations/us/keyRings/r/cryptoKeys/k', b'\\x01') AS k",
		"SELECT KEYS.KEYSET_CHAIN('gcp-kms://projects/\\x6fther/locations/us/keyRings/r/cryptoKeys/k', b'\\x01') AS k",
		"SELECT KEYS.KEYSET_CHAIN(kms_resource_name => " + fourthOtherKey + ", first_level_keyset => b'\\x01') AS k",
		"SELECT KEYS.KEYSET_CHAIN(@key, b'\\x01') AS k",
		"SELECT KEYS.KEYSET_CHAIN(name, b'\\x01') AS k FROM sales.orders",
		"SELECT * FROM sales.orders WHERE id IN (SELECT KEYS.KEYSET_LENGTH(KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01')))",
		"SELECT * FROM sales.orders |> EXTEND AEAD.ENCRYPT(KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01'), name, '') AS e",
		"FROM sales.orders |> WHERE AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01'), name, '') = 'x'",
		"CREATE TEMP FUNCTION f(x BYTES) AS (AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01'), x, '')); SELECT f(b'') AS n",
	}
	fourthRoundWrites = []string{
		"INSERT INTO sales.orders (name) SELECT TO_HEX(KEYS.NEW_WRAPPED_KEYSET(" + fourthOtherKey + ", 'AEAD_AES_GCM_256'))",
		"UPDATE sales.orders SET name = AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01'), b'', '') WHERE TRUE",
		"CREATE TABLE sales.k AS SELECT KEYS.NEW_WRAPPED_KEYSET(" + fourthOtherKey + ", 'AEAD_AES_GCM_256') AS k",
		"EXPORT DATA OPTIONS (uri = 'gs://mcp-exports/exports/k/*.csv', format = 'CSV') AS SELECT KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01') AS k",
		"CREATE PROCEDURE sales.p() BEGIN SELECT KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01'); END",
		"CREATE TABLE sales.t (n INT64) OPTIONS (kms_key_name = 'projects/other/locations/us/keyRings/r/cryptoKeys/k')",
		"ALTER TABLE sales.orders SET OPTIONS (kms_key_name = 'projects/other/locations/us/keyRings/r/cryptoKeys/k')",
		"ALTER SCHEMA sales SET OPTIONS (default_kms_key_name = 'projects/other/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE MODEL sales.m OPTIONS (model_type = 'ONNX', model_path = 'gs://other-bucket/m/*')",
		"CREATE OR REPLACE MODEL `sales.m` OPTIONS (MODEL_TYPE = 'TENSORFLOW', MODEL_PATH = 'gs://b/m/*')",
		"CREATE MODEL sales.m OPTIONS (model_type = 'TENSORFLOW_LITE', model_path = 'gs://b/m/*')",
		"CREATE MODEL sales.m INPUT (f FLOAT64) OUTPUT (p FLOAT64) OPTIONS (model_type = 'XGBOOST', model_path = 'gs://b/m/*')",
		"CREATE PROCEDURE sales.p() BEGIN CREATE MODEL sales.m OPTIONS (model_type = 'ONNX', model_path = 'gs://b/m/*'); END",
		"CREATE MODEL sales.m OPTIONS (model_type = 'linear_reg', model_registry = 'VERTEX_AI') AS SELECT 1 AS label",
		"ALTER MODEL sales.m SET OPTIONS (vertex_ai_model_id = 'other_model')",
		"CREATE PROCEDURE sales.p() BEGIN SET @@dataset_id = 'secret'; DELETE FROM orders WHERE TRUE; END",
		"CREATE PROCEDURE sales.p() BEGIN SET @@dataset_project_id = 'other'; DELETE FROM sales.orders WHERE TRUE; END",
		"CREATE PROCEDURE sales.p() BEGIN SET (@@dataset_project_id, @@dataset_id) = ('other', 'secret'); SELECT * FROM orders; END",
		"CREATE PROCEDURE sales.p() BEGIN CALL sales.q(); END",
	}
)

// TestFourthRoundOverStdio: the built binary, started with --datasets
// sales and a --kms-keys that lists another key, read-only and with
// --allow-writes, refuses every attack of the fourth round through
// execute_sql, dry_run_sql and export_results: PERMISSION_DENIED (or the
// read-only guard's INVALID_ARGUMENT) and not one request at the wire.
// A key it lists passes the text and runs.
func TestFourthRoundOverStdio(t *testing.T) {
	keys := "--kms-keys=projects/p/locations/us/keyRings/pii/cryptoKeys/*"
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"read-only", []string{"--datasets", "sales", "--toolsets", "all", keys}},
		{"allow-writes", []string{"--datasets", "sales", "--toolsets", "all", "--allow-writes", "--export-gcs", "gs://mcp-exports/exports", keys}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cs, fake := startGovernedBinary(t, "", nil, append(mode.args, "--export-dir", t.TempDir())...)
			refusedByEveryQueryTool(t, cs, fake, mode.name, append(append([]string{}, fourthRoundQueries...), fourthRoundWrites...), bqerr.PermissionDenied, bqerr.InvalidArgument)
			fake.mu.Lock()
			dryRuns := len(fake.dryRuns)
			fake.mu.Unlock()
			if dryRuns != 0 {
				t.Errorf("%d dry runs for statements the text refuses", dryRuns)
			}
			listed := "SELECT AEAD.ENCRYPT(KEYS.KEYSET_CHAIN(" + fourthListedKey + ", b'\\x01'), 'x', '') AS e"
			ok[map[string]any](t, cs, "execute_sql", map[string]any{"sql": listed})
			if _, jobs := fake.snapshot(); jobs != 1 {
				t.Errorf("%d jobs for a query naming a listed key, want 1", jobs)
			}
		})
	}
}

// beyondZetaSQL are the fourth round's statements that BigQuery accepts
// and go-zetasql's parser does not (with every language feature on or
// with the oracle's options), with why: the reader must refuse them on
// its own.
var beyondZetaSQL = map[string]string{
	"SELECT * FROM sales.orders |> EXTEND AEAD.ENCRYPT(KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01'), name, '') AS e":      "pipe syntax, newer than go-zetasql v0.5.5",
	"FROM sales.orders |> WHERE AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + fourthOtherKey + ", b'\\x01'), name, '') = 'x'":        "pipe syntax, newer than go-zetasql v0.5.5",
	"CREATE MODEL sales.m INPUT (f FLOAT64) OUTPUT (p FLOAT64) OPTIONS (model_type = 'XGBOOST', model_path = 'gs://b/m/*')":      "BigQuery ML's INPUT and OUTPUT clauses",
	"ALTER MODEL sales.m SET OPTIONS (vertex_ai_model_id = 'other_model')":                                                       "ALTER MODEL is not supported",
	"CREATE PROCEDURE sales.p() BEGIN SET (@@dataset_project_id, @@dataset_id) = ('other', 'secret'); SELECT * FROM orders; END": "system variables in a tuple SET",
}

// TestFourthRoundAgainstZetaSQL holds the fourth round to ZetaSQL,
// BigQuery's own parser: every statement but beyondZetaSQL's is GoogleSQL
// ZetaSQL parses (so the spellings are real ones: named arguments, quoted
// option names, SET of a system variable in a body), with the oracle's
// options or with every language feature on; the reader refuses it or
// names every table, model and routine ZetaSQL's tree holds; and the
// reader's verdict is the one the attack needs (a key of another project
// named, or the statement refused).
func TestFourthRoundAgainstZetaSQL(t *testing.T) {
	all := append(append([]string{}, fourthRoundQueries...), fourthRoundWrites...)
	for _, sql := range all {
		var problems []string
		var text *sqltext.Text
		_, beyond := beyondZetaSQL[sql]
		if r := runOracle(sql); r.parsed {
			problems, text = r.problems, r.text
		} else if p := invZetaParse(sql); p.err == nil {
			o := invCompare(sql, p.names)
			problems, text = o.problems, o.text
		} else {
			if !beyond {
				t.Errorf("ZetaSQL does not parse %q: %v", sql, p.err)
			}
			beyond = false
			text = sqltext.Parse(sql)
		}
		if beyond {
			t.Errorf("%q is in beyondZetaSQL, but ZetaSQL parses it", sql)
		}
		for _, p := range problems {
			t.Errorf("%q: %s", sql, p)
		}
		refused := false
		for _, st := range text.Statements {
			refused = refused || len(st.Unplaced) > 0 || len(st.External) > 0
			for _, o := range st.Objects {
				refused = refused || o.Kind == sqltext.KMSKey && strings.Join(o.Path, ".") == "other.us.r.k"
			}
		}
		if !refused {
			t.Errorf("%q: the reader names no key of another project and refuses nothing", sql)
		}
	}
	t.Logf("fourth round against ZetaSQL: %d statements, %d beyond go-zetasql's parser", len(all), len(beyondZetaSQL))
}
