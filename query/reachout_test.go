package query

import (
	"context"
	"strings"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// Issue 35's fourth round: what reaches outside BigQuery's datasets (Cloud
// KMS keys, imported models read from Cloud Storage, Vertex AI) and
// procedure bodies that move the default dataset, in every position, under
// --datasets sales,mkt_* (newGovernedService).

// otherKey is a key of another project, in the two spellings BigQuery
// takes: the functions' gcp-kms:// URI and the options' resource name.
const (
	otherKey    = "'gcp-kms://projects/other/locations/us/keyRings/r/cryptoKeys/k'"
	otherKeyOpt = "'projects/other/locations/us/keyRings/r/cryptoKeys/k'"
	listedKey   = "'gcp-kms://projects/p/locations/us/keyRings/pii/cryptoKeys/email'"
)

// fourthRound are the attacks, each of which the text alone refuses;
// writes marks those that need --allow-writes to be more than the
// read-only guard's business.
var fourthRound = []struct {
	sql    string
	writes bool
	// why is a word of the refusal: the attack is refused for what it
	// is, not by chance.
	why string
}{
	// Cloud KMS keys, by every function that names one, in every
	// position and spelling.
	{sql: "SELECT AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + otherKey + ", b'\\x01'), c, 'aad') FROM sales.orders", why: "Cloud KMS key"},
	{sql: "SELECT keys.new_wrapped_keyset(" + otherKey + ", 'AEAD_AES_GCM_256')", why: "Cloud KMS key"},
	{sql: "SELECT SAFE.KEYS.ROTATE_WRAPPED_KEYSET(" + otherKey + ", b'\\x01')", why: "Cloud KMS key"},
	{sql: "SELECT KEYS.REWRAP_KEYSET(" + listedKey + ", " + otherKey + ", b'\\x01')", why: "Cloud KMS key"},
	{sql: "SELECT DLP_DETERMINISTIC_ENCRYPT(DLP_KEY_CHAIN(" + otherKey + ", b'\\x01'), name, '', 'ctx') FROM sales.orders", why: "Cloud KMS key"},
	{sql: "SELECT dlp_deterministic_decrypt(k, name, '') FROM sales.orders", why: "DLP_KEY_CHAIN"},
	{sql: "SELECT `KEYS.KEYSET_CHAIN`(/* k */ " + otherKey + ", b'\\x01')", why: "Cloud KMS key"},
	{sql: "SELECT `keys`.keyset_chain(r'gcp-kms://projects/other/locations/us/keyRings/r/cryptoKeys/k', b'\\x01')", why: "Cloud KMS key"},
	{sql: "SELECT KEYS.KEYSET_CHAIN('gcp-kms://projects/\\x6fther/locations/us/keyRings/r/cryptoKeys/k', b'\\x01')", why: "Cloud KMS key"},
	{sql: "SELECT KEYS.KEYSET_CHAIN(kms_resource_name => " + otherKey + ", first_level_keyset => b'\\x01')", why: "Cloud KMS key"},
	{sql: "SELECT KEYS.KEYSET_CHAIN(@key, b'\\x01')", why: "Cloud KMS key"},
	{sql: "SELECT KEYS.KEYSET_CHAIN(CONCAT('gcp-kms://projects/', 'other/locations/us/keyRings/r/cryptoKeys/k'), b'\\x01')", why: "Cloud KMS key"},
	{sql: "SELECT KEYS.KEYSET_CHAIN(kms, b'\\x01') FROM sales.orders", why: "Cloud KMS key"},
	{sql: "SELECT * FROM sales.orders WHERE id IN (SELECT KEYS.KEYSET_LENGTH(KEYS.KEYSET_CHAIN(" + otherKey + ", b'\\x01')))", why: "Cloud KMS key"},
	{sql: "SELECT * FROM sales.orders |> EXTEND AEAD.ENCRYPT(KEYS.KEYSET_CHAIN(" + otherKey + ", b'\\x01'), name, '') AS e", why: "Cloud KMS key"},
	{sql: "FROM sales.orders |> WHERE AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + otherKey + ", b'\\x01'), c, '') = 'x'", why: "Cloud KMS key"},
	{sql: "FROM sales.orders |> AGGREGATE COUNT(KEYS.NEW_WRAPPED_KEYSET(" + otherKey + ", 'AEAD_AES_GCM_256')) AS n", why: "Cloud KMS key"},
	{sql: "CREATE TEMP FUNCTION f(x BYTES) AS (AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + otherKey + ", b'\\x01'), x, '')); SELECT f(c) FROM sales.orders", why: "Cloud KMS key"},
	{sql: "INSERT INTO sales.orders (k) SELECT KEYS.NEW_WRAPPED_KEYSET(" + otherKey + ", 'AEAD_AES_GCM_256')", writes: true, why: "Cloud KMS key"},
	{sql: "UPDATE sales.orders SET name = AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + otherKey + ", b'\\x01'), c, '') WHERE TRUE", writes: true, why: "Cloud KMS key"},
	{sql: "MERGE sales.orders T USING (SELECT KEYS.NEW_WRAPPED_KEYSET(" + otherKey + ", 'AEAD_AES_GCM_256') AS k) S ON FALSE WHEN NOT MATCHED THEN INSERT (k) VALUES (S.k)", writes: true, why: "Cloud KMS key"},
	{sql: "CREATE TABLE sales.keys AS SELECT KEYS.NEW_WRAPPED_KEYSET(" + otherKey + ", 'AEAD_AES_GCM_256') AS k", writes: true, why: "Cloud KMS key"},
	{sql: "EXPORT DATA OPTIONS (uri = 'gs://b/exports/k/*.csv', format = 'CSV') AS SELECT KEYS.KEYSET_CHAIN(" + otherKey + ", b'\\x01') AS k", writes: true, why: "Cloud KMS key"},
	{sql: "CREATE PROCEDURE sales.p() BEGIN SELECT KEYS.KEYSET_CHAIN(" + otherKey + ", b'\\x01'); END", writes: true, why: "Cloud KMS key"},
	{sql: "CREATE TABLE sales.t (n INT64) OPTIONS (kms_key_name = " + otherKeyOpt + ")", writes: true, why: "Cloud KMS key"},
	{sql: "CREATE TABLE sales.t OPTIONS (`KMS_KEY_NAME` = " + otherKeyOpt + ") AS SELECT 1 AS n", writes: true, why: "Cloud KMS key"},
	{sql: "CREATE TABLE sales.t (n INT64) OPTIONS (kms_key_name = @key)", writes: true, why: "Cloud KMS key"},
	{sql: "ALTER TABLE sales.orders SET OPTIONS (kms_key_name = " + otherKeyOpt + ")", writes: true, why: "Cloud KMS key"},
	{sql: "CREATE SCHEMA mkt_new OPTIONS (default_kms_key_name = " + otherKeyOpt + ")", writes: true, why: "Cloud KMS key"},
	{sql: "ALTER SCHEMA sales SET OPTIONS (default_kms_key_name = " + otherKeyOpt + ")", writes: true, why: "Cloud KMS key"},
	{sql: "CREATE MODEL sales.m OPTIONS (model_type = 'linear_reg', kms_key_name = " + otherKeyOpt + ") AS SELECT 1 AS label", writes: true, why: "Cloud KMS key"},
	// Imported models read Cloud Storage.
	{sql: "CREATE MODEL sales.m OPTIONS (model_type = 'ONNX', model_path = 'gs://other-bucket/m/*')", writes: true, why: "imported model"},
	{sql: "CREATE OR REPLACE MODEL `sales.m` OPTIONS (MODEL_TYPE = 'TENSORFLOW', MODEL_PATH = 'gs://b/m/*')", writes: true, why: "imported model"},
	{sql: "CREATE MODEL sales.m OPTIONS (model_type = 'TENSORFLOW_LITE', `model_path` = 'gs://b/m/*')", writes: true, why: "imported model"},
	{sql: "CREATE MODEL sales.m INPUT (f FLOAT64) OUTPUT (p FLOAT64) OPTIONS (model_type = 'XGBOOST', model_path = 'gs://b/m/*')", writes: true, why: "imported model"},
	{sql: "CREATE PROCEDURE sales.p() BEGIN CREATE MODEL sales.m OPTIONS (model_type = 'ONNX', model_path = 'gs://b/m/*'); END", writes: true, why: "imported model"},
	// Vertex AI.
	{sql: "CREATE MODEL sales.m OPTIONS (model_type = 'linear_reg', model_registry = 'VERTEX_AI') AS SELECT 1 AS label", writes: true, why: "Vertex AI"},
	{sql: "CREATE MODEL sales.m OPTIONS (model_type = 'linear_reg', model_registry = 'vertex_ai', vertex_ai_model_version_aliases = ['a']) AS SELECT 1 AS label", writes: true, why: "Vertex AI"},
	{sql: "ALTER MODEL sales.m SET OPTIONS (vertex_ai_model_id = 'other_model')", writes: true, why: "Vertex AI"},
	{sql: "CREATE PROCEDURE sales.p() BEGIN ALTER MODEL sales.m SET OPTIONS (vertex_ai_model_id = 'x'); END", writes: true, why: "Vertex AI"},
	// An option this server does not know whose value names a resource.
	{sql: "CREATE TABLE sales.t (n INT64) OPTIONS (some_future_option = 'gs://other/x')", writes: true, why: "does not know"},
	// Procedure bodies that move the default dataset or project, or call.
	{sql: "CREATE PROCEDURE sales.p() BEGIN SET @@dataset_id = 'secret'; DELETE FROM orders WHERE TRUE; END", writes: true, why: "system variable"},
	{sql: "CREATE PROCEDURE sales.p() BEGIN SET @@dataset_project_id = 'other'; DELETE FROM sales.orders WHERE TRUE; END", writes: true, why: "system variable"},
	{sql: "CREATE PROCEDURE sales.p() BEGIN SET (@@dataset_project_id, @@dataset_id) = ('other', 'secret'); SELECT * FROM orders; END", writes: true, why: "system variable"},
	{sql: "create procedure sales.p() begin set @@DATASET_ID = 'secret'; truncate table orders; end", writes: true, why: "system variable"},
	{sql: "CREATE PROCEDURE sales.p() BEGIN SET @@location = 'eu'; SELECT 1; END", writes: true, why: "system variable"},
	{sql: "CREATE PROCEDURE sales.p() BEGIN CALL sales.q(); END", writes: true, why: "calls a procedure"},
}

// TestFourthRoundUnderAttack: each of the fourth round is refused with
// PERMISSION_DENIED from the text alone (no dry run, no job), by
// execute_sql, dry_run_sql and export_results' path (RunToTable); with
// --kms-keys listing another key than the one named, too.
func TestFourthRoundUnderAttack(t *testing.T) {
	keys, err := governance.ParseKMSKeys("projects/p/locations/us/keyRings/pii/cryptoKeys/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range fourthRound {
		t.Run(tc.sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, tc.writes, func(c *Config) { c.ExportGCS, c.KMSKeys = "gs://b/exports", keys })
			ctx := context.Background()
			_, err := s.Execute(ctx, ExecuteInput{SQL: tc.sql})
			if e, ok := bqerr.As(err); !ok || e.Code != bqerr.PermissionDenied || !strings.Contains(e.Message, tc.why) {
				t.Fatalf("Execute = %v, want PERMISSION_DENIED for %q", err, tc.why)
			}
			if _, err := s.DryRun(ctx, DryRunInput{SQL: tc.sql}); err == nil {
				t.Error("dry_run_sql accepted it")
			}
			if _, err := s.RunToTable(ctx, ExecuteInput{SQL: tc.sql}, nil); err == nil {
				t.Error("export_results' path accepted it")
			}
			if dryRuns, queries, _ := fake.counts(); queries != 0 || dryRuns != 0 {
				t.Errorf("%d dry runs and %d jobs for a statement its text refuses", dryRuns, queries)
			}
		})
	}
}

// TestReachOutsListedRun: a key --kms-keys lists, a procedure that sets
// only @@time_zone, and options that name nothing outside still run.
func TestReachOutsListedRun(t *testing.T) {
	keys, err := governance.ParseKMSKeys("projects/p/locations/us/keyRings/pii/cryptoKeys/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"SELECT AEAD.DECRYPT_STRING(KEYS.KEYSET_CHAIN(" + listedKey + ", b'\\x01'), c, 'aad') FROM sales.orders",
		"SELECT DLP_DETERMINISTIC_ENCRYPT(DLP_KEY_CHAIN(" + listedKey + ", b'\\x01'), name, '', 'ctx') FROM sales.orders",
		"SELECT KEYS.REWRAP_KEYSET(" + listedKey + ", 'gcp-kms://projects/p/locations/us/keyRings/pii/cryptoKeys/phone', b'\\x01')",
		"CREATE TABLE sales.t (n INT64) OPTIONS (kms_key_name = 'projects/p/locations/us/keyRings/pii/cryptoKeys/email')",
		"CREATE TABLE sales.t (n INT64 OPTIONS (description = 'see https://wiki.example/t')) OPTIONS (description = 'from https://example.com', labels = [('team', 'a')])",
		"CREATE PROCEDURE sales.p() BEGIN SET @@time_zone = 'Europe/Berlin'; DECLARE d STRING DEFAULT @@dataset_id; SELECT * FROM sales.orders; END",
		"SELECT AEAD.DECRYPT_STRING(keyset, c, 'aad') FROM sales.orders",
	} {
		t.Run(sql, func(t *testing.T) {
			bare, _ := newGovernedService(t, nil, true)
			err := bare.checkText(&request{sql: sql, text: sqltext.Parse(sql)})
			if strings.Contains(sql, "pii") && err == nil {
				t.Error("allowed without --kms-keys")
			}
			s, fake := newGovernedService(t, nil, true, func(c *Config) { c.KMSKeys = keys })
			fake.stats = map[string]*bq.JobStatistics2{sql: {StatementType: "SELECT", ReferencedTables: []*bq.TableReference{restTable("p.sales.orders")}}}
			if _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); err != nil {
				t.Fatalf("Execute refused it with --kms-keys: %v", err)
			}
		})
	}
}

// TestKMSKeyRefusalNamesTheKey: the refusal names the key and the flag
// that would allow it.
func TestKMSKeyRefusalNamesTheKey(t *testing.T) {
	s, _ := newGovernedService(t, nil, false)
	_, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT KEYS.KEYSET_CHAIN(" + otherKey + ", b'\\x01')"})
	e, ok := bqerr.As(err)
	if !ok || e.Code != bqerr.PermissionDenied || !strings.Contains(e.Message, "projects/other/locations/us/keyRings/r/cryptoKeys/k") ||
		!strings.Contains(e.Message, "--kms-keys (none)") {
		t.Errorf("Execute = %v, want PERMISSION_DENIED naming the key and --kms-keys", err)
	}
}
