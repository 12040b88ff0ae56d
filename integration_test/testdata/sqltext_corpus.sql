-- Corpus for TestSQLTextOracle and FuzzSQLTextOracle (sqltext_oracle_test.go).
-- One entry per block; blocks are separated by blank lines. A block made only
-- of "--" lines (like this one) is a file comment, not an entry. An entry may
-- hold several statements (a script). Dataset "ok" stands for an allowed
-- dataset, "secret" for one outside the allowlist; the oracle does not care.

SELECT * FROM secret.t

SELECT * FROM `secret.t`

SELECT * FROM `secret`.`t`

SELECT * FROM `my-proj.secret.t`

SELECT * FROM my-proj.secret.t

SELECT * FROM my-proj-123.secret.t AS x WHERE x.a > 0

SELECT * FROM `my-proj`.`secret.t`

SELECT * FROM `my-proj.secret`.t

SELECT * FROM `secr\x65t`.t

SELECT * FROM `secr\u0065t`.`t`

SELECT * FROM `secr\U00000065t`.t

SELECT * FROM `secr\145t`.t

SELECT * FROM `\x73\x65\x63\x72\x65\x74`.`\x74`

SELECT * FROM `sec\`ret`.t

SELECT * FROM `secret`.`t\x5Fx`

SELECT * FROM secret /* between */ . /* parts */ t

SELECT * FROM secret
  .t

SELECT * FROM SeCrEt.T

SELECT * FROM `secret.events_*` WHERE _TABLE_SUFFIX > '2024'

SELECT * FROM secret.events_*

SELECT * FROM secret.2024_sales

SELECT * FROM (SELECT 1 AS x), secret.t

SELECT * FROM (SELECT 1 AS x) AS s, `region-us`.`INFORMATION\x5FSCHEMA`.JOBS

SELECT * FROM (SELECT 1 AS x) s, `secr\x65t`.t

SELECT * FROM ok.a JOIN ok.b USING (id), secret.t

SELECT * FROM ok.a JOIN ok.b USING (id) JOIN secret.t USING (id)

SELECT * FROM ok.a INNER JOIN secret.t ON a.id = t.id

SELECT * FROM ok.a LEFT OUTER JOIN secret.t AS s ON a.id = s.id

SELECT * FROM ok.a RIGHT JOIN secret.t USING (id)

SELECT * FROM ok.a FULL OUTER JOIN secret.t USING (id)

SELECT * FROM ok.a CROSS JOIN secret.t

SELECT * FROM ok.a, ok.b, ok.c, secret.t

SELECT * FROM UNNEST([1, 2, 3]) AS n, secret.t

SELECT * FROM UNNEST([1, 2]) n WITH OFFSET o CROSS JOIN secret.t

SELECT * FROM ok.a, UNNEST(a.arr) AS e, secret.t

SELECT * FROM ok.a AS a, a.arr AS e, secret.t

SELECT * FROM ok.a a LEFT JOIN a.arr e ON TRUE

SELECT * FROM ok.secret, secret.arr

SELECT * FROM ok.a AS secret, secret.t

SELECT * FROM (ok.a JOIN secret.t USING (id))

SELECT * FROM ((SELECT 1 AS id) s JOIN secret.t USING (id))

SELECT * FROM (ok.a CROSS JOIN ok.b), secret.t

SELECT * FROM secret.t FOR SYSTEM_TIME AS OF TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 HOUR)

SELECT * FROM ok.a, secret.t FOR SYSTEM_TIME AS OF '2024-01-01 00:00:00'

SELECT * FROM secret.t TABLESAMPLE SYSTEM (10 PERCENT)

SELECT * FROM ok.a TABLESAMPLE SYSTEM (1 PERCENT), secret.t

SELECT * FROM secret.t PIVOT (SUM(sales) FOR quarter IN ('Q1', 'Q2'))

SELECT * FROM ok.a PIVOT (SUM(sales) FOR quarter IN ('Q1')) AS p, secret.t

SELECT * FROM secret.t UNPIVOT (sales FOR quarter IN (q1, q2))

SELECT * FROM ok.a UNPIVOT (v FOR k IN (x, y)) AS u JOIN secret.t USING (id)

SELECT * FROM ok.a WHERE id IN (SELECT id FROM secret.t)

SELECT * FROM ok.a WHERE EXISTS (SELECT 1 FROM secret.t WHERE t.id = a.id)

SELECT * FROM ok.a WHERE x = (SELECT MAX(x) FROM secret.t)

SELECT (SELECT COUNT(*) FROM secret.t) AS n

SELECT a.x, (SELECT AS STRUCT * FROM secret.t LIMIT 1) AS s FROM ok.a

SELECT ARRAY(SELECT x FROM secret.t) AS xs

SELECT * FROM ok.a WHERE x IN UNNEST((SELECT ARRAY_AGG(y) FROM secret.t))

SELECT x FROM ok.a GROUP BY x HAVING COUNT(*) > (SELECT COUNT(*) FROM secret.t)

SELECT x FROM ok.a ORDER BY (SELECT MIN(y) FROM secret.t)

SELECT CASE WHEN x > 0 THEN (SELECT 1 FROM secret.t) ELSE 0 END FROM ok.a

SELECT x, ROW_NUMBER() OVER (ORDER BY x) FROM ok.a QUALIFY x > (SELECT 1 FROM secret.t)

WITH c AS (SELECT * FROM secret.t) SELECT * FROM c

WITH c AS (SELECT 1 AS x), d AS (SELECT * FROM secret.t) SELECT * FROM c, d

WITH RECURSIVE c AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT * FROM c, secret.t

WITH RECURSIVE r AS (SELECT id FROM secret.t UNION ALL SELECT id + 1 FROM r WHERE id < 9) SELECT * FROM r

WITH t AS (SELECT 1 AS x) SELECT * FROM t, secret.t

WITH c AS (SELECT [1, 2] AS arr) SELECT * FROM c, c.arr, secret.t

SELECT 1 UNION ALL SELECT x FROM secret.t

(SELECT * FROM ok.a) UNION DISTINCT (SELECT * FROM secret.t)

SELECT * FROM ok.a EXCEPT DISTINCT SELECT * FROM secret.t

SELECT * FROM ok.a INTERSECT DISTINCT SELECT * FROM secret.t

((SELECT * FROM secret.t))

SELECT * FROM ok.a /* one */ , /* two */ secret.t

SELECT * FROM ok.a -- comment
, secret.t

SELECT * FROM ok.a # comment
JOIN secret.t USING (id)

/* leading comment */ SELECT * FROM secret.t /* trailing */

-- leading line comment
SELECT * FROM secret.t

SELECT '--', * FROM secret.t

SELECT "/*", * FROM secret.t, ok.a -- */

SELECT 'a;b', * FROM secret.t

SELECT """x
; y""" AS s, * FROM secret.t

SELECT r'\d+', b'\x00', rb'\n' FROM secret.t

SELECT '''it's''' AS s FROM secret.t

SELECT "it\"s" AS s FROM secret.t

SELECT 1 /* ; */ FROM secret.t

SELECT * FROM secret.t#comment

SELECT * FROM ok.a WHERE x = 'FROM secret.t'

SELECT t.* FROM secret.t AS t

SELECT secret.t.col FROM secret.t

SELECT @{hint = 1} * FROM secret.t

SELECT * FROM secret.t @{force_index = i}

SELECT * FROM secret.t WHERE secret.fn(x) > 0

SELECT secret.fn(1)

SELECT `secret.fn`(1)

SELECT `secret`.`fn`(1)

SELECT `my-proj`.secret.fn(1)

SELECT `my-proj.secret.fn`(1)

SELECT `secr\x65t`.fn(1)

SELECT ok.fn(secret.fn(1))

SELECT x FROM ok.a WHERE secret.fn(x)

SELECT secret.agg(x) OVER (PARTITION BY y) FROM ok.a

SELECT ARRAY_AGG(secret.fn(x)) FROM ok.a

SELECT IF(secret.fn(1), 1, 2)

SELECT NET.HOST(u), SAFE.LOG(x, 2), HLL_COUNT.MERGE(s), KLL_QUANTILES.EXTRACT_INT64(k, 2) FROM ok.a

SELECT AEAD.DECRYPT_STRING(k, c, 'a'), KEYS.NEW_KEYSET('AEAD_AES_GCM_256'), DETERMINISTIC_ENCRYPT(k, 'p', 'a') FROM ok.a

SELECT OBJ.FETCH_METADATA(r), OBJ.GET_ACCESS_URL(r, 'r'), ML.DISTANCE(a, b), AI.GENERATE('x', connection_id => 'c') FROM ok.a

SELECT SAFE.PARSE_DATE('%Y', y), SAFE.NET.IP_FROM_STRING(ip) FROM ok.a

SELECT * FROM secret.tvf(1)

SELECT * FROM secret.tvf(TABLE ok.a)

SELECT * FROM ok.a JOIN secret.tvf(2) AS f ON TRUE

SELECT * FROM (SELECT 1), secret.tvf(3)

SELECT * FROM ok.tvf(TABLE secret.t)

SELECT * FROM ok.tvf((SELECT * FROM secret.t))

SELECT * FROM ML.PREDICT(MODEL secret.m, TABLE ok.a)

SELECT * FROM ML.PREDICT(MODEL ok.m, TABLE secret.t)

SELECT * FROM ML.PREDICT(MODEL ok.m, (SELECT * FROM secret.t))

SELECT * FROM ML.PREDICT(MODEL `secret.m`, (SELECT 1 AS x), STRUCT(0.5 AS threshold))

SELECT * FROM ML.WEIGHTS(MODEL secret.m)

SELECT * FROM ML.FEATURE_INFO(MODEL `secret`.`m`)

SELECT * FROM ML.EVALUATE(MODEL secret.m)

SELECT * FROM ML.EVALUATE(MODEL ok.m, TABLE secret.t)

SELECT * FROM ML.TRAINING_INFO(MODEL `my-proj.secret.m`)

SELECT * FROM ML.FORECAST(MODEL secret.m, STRUCT(7 AS horizon))

SELECT * FROM ML.EXPLAIN_PREDICT(MODEL secret.m, TABLE ok.a, STRUCT(3 AS top_k_features))

SELECT * FROM ML.GENERATE_TEXT(MODEL secret.m, (SELECT 'hi' AS prompt))

SELECT * FROM ML.GENERATE_EMBEDDING(MODEL ok.m, TABLE secret.t)

SELECT * FROM AI.GENERATE_TABLE(MODEL secret.m, (SELECT 'x' AS prompt), STRUCT('a STRING' AS output_schema))

SELECT * FROM ok.a, ML.PREDICT(MODEL `secr\x65t`.m, TABLE ok.b)

SELECT * FROM (SELECT 1), ML.WEIGHTS(MODEL secret.m)

SELECT (SELECT COUNT(*) FROM ML.WEIGHTS(MODEL secret.m)) AS n

SELECT * FROM VECTOR_SEARCH(TABLE secret.t, 'emb', (SELECT [1.0, 2.0] AS emb), top_k => 3)

SELECT * FROM VECTOR_SEARCH(TABLE ok.a, 'emb', TABLE secret.t, 'emb')

SELECT * FROM APPENDS(TABLE secret.t, NULL, NULL)

SELECT * FROM CHANGES(TABLE secret.t, TIMESTAMP '2024-01-01', NULL)

SELECT * FROM GAP_FILL(TABLE secret.t, ts_column => 'ts', bucket_width => INTERVAL 1 MINUTE)

SELECT * FROM EXTERNAL_QUERY('us.conn', 'SELECT * FROM x'), secret.t

SELECT * FROM secret.INFORMATION_SCHEMA.TABLES

SELECT * FROM `secret`.INFORMATION_SCHEMA.COLUMNS

SELECT * FROM `secret.INFORMATION_SCHEMA.TABLES`

SELECT * FROM secret.information_schema.columns

SELECT * FROM `secret`.`INFORMATION\u005FSCHEMA`.`COLUMNS`

SELECT * FROM `region-us`.INFORMATION_SCHEMA.JOBS

SELECT * FROM region-us.INFORMATION_SCHEMA.JOBS

SELECT * FROM `region-us.INFORMATION_SCHEMA.JOBS_BY_PROJECT`

SELECT * FROM `region-us`.`INFORMATION\137SCHEMA`.JOBS

SELECT * FROM my-proj.`region-eu`.INFORMATION_SCHEMA.JOBS

SELECT * FROM `my-proj.secret.INFORMATION_SCHEMA.COLUMN_FIELD_PATHS`

SELECT * FROM INFORMATION_SCHEMA.SCHEMATA

SELECT * FROM `INFORMATION\x5FSCHEMA`.SCHEMATA

SELECT * FROM ok.a WHERE x IN (SELECT table_name FROM secret.INFORMATION_SCHEMA.TABLES)

SELECT * FROM secret.t |> WHERE x > 0 |> SELECT x

FROM secret.t |> SELECT x

FROM ok.a |> JOIN secret.t USING (id)

SELECT * FROM ok.a |> UNION ALL (SELECT * FROM secret.t)

INSERT INTO secret.t (a) VALUES (1)

INSERT secret.t VALUES (1, 'x')

INSERT INTO ok.a SELECT * FROM secret.t

INSERT INTO ok.a (x) WITH c AS (SELECT x FROM secret.t) SELECT x FROM c

INSERT INTO `secr\x65t`.t (a) VALUES ((SELECT 1))

DELETE FROM secret.t WHERE TRUE

DELETE secret.t WHERE x IN (SELECT x FROM ok.a)

DELETE FROM ok.a WHERE x IN (SELECT x FROM secret.t)

UPDATE secret.t SET a = 1 WHERE TRUE

UPDATE ok.a SET x = s.x FROM secret.t s WHERE a.id = s.id

UPDATE ok.a SET x = (SELECT MAX(x) FROM secret.t) WHERE TRUE

UPDATE ok.a AS a SET arr = ARRAY(SELECT v FROM secret.t) WHERE TRUE

UPDATE ok.a SET x = 1 FROM ok.b, secret.t WHERE TRUE

MERGE secret.t T USING ok.a S ON T.id = S.id WHEN MATCHED THEN DELETE

MERGE INTO ok.a T USING secret.t S ON T.id = S.id WHEN NOT MATCHED THEN INSERT ROW

MERGE ok.a T USING (SELECT * FROM secret.t) S ON T.id = S.id WHEN MATCHED THEN UPDATE SET x = S.x

MERGE ok.a USING ok.b ON FALSE WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED THEN INSERT (x) VALUES ((SELECT 1 FROM secret.t))

TRUNCATE TABLE secret.t

TRUNCATE TABLE `my-proj.secret.t`

CREATE TABLE secret.t (a INT64)

CREATE TABLE IF NOT EXISTS secret.t (a INT64, b STRING) PARTITION BY _PARTITIONDATE OPTIONS (description = 'x')

CREATE OR REPLACE TABLE secret.t AS SELECT 1 AS a

CREATE TABLE ok.n AS SELECT * FROM secret.t

CREATE TABLE ok.n PARTITION BY d CLUSTER BY x AS SELECT * FROM ok.a JOIN secret.t USING (id)

CREATE TABLE ok.n LIKE secret.t

CREATE TABLE ok.n LIKE `my-proj.secret.t` AS SELECT 1 AS x

CREATE TABLE ok.n COPY secret.t

CREATE TABLE ok.n CLONE secret.t

CREATE TABLE ok.n CLONE secret.t FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01'

CREATE OR REPLACE TABLE ok.n CLONE `secr\x65t`.t

CREATE SNAPSHOT TABLE ok.snap CLONE secret.t

CREATE SNAPSHOT TABLE secret.snap CLONE ok.a FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP() OPTIONS (expiration_timestamp = TIMESTAMP '2030-01-01')

CREATE TEMP TABLE tmp AS SELECT * FROM secret.t

CREATE TEMPORARY TABLE tmp (x INT64)

CREATE TABLE ok.n (x INT64, FOREIGN KEY (x) REFERENCES secret.t(y) NOT ENFORCED)

CREATE TABLE ok.n (x INT64 REFERENCES secret.t(y) NOT ENFORCED, PRIMARY KEY (x) NOT ENFORCED)

CREATE TABLE ok.n (x INT64) OPTIONS (description = 'FROM secret.t')

CREATE EXTERNAL TABLE secret.e OPTIONS (format = 'CSV', uris = ['gs://b/x.csv'])

CREATE OR REPLACE EXTERNAL TABLE ok.e WITH CONNECTION `us.conn` OPTIONS (format = 'PARQUET', uris = ['gs://b/*'])

CREATE EXTERNAL TABLE ok.e WITH PARTITION COLUMNS (d DATE) OPTIONS (format = 'CSV', uris = ['gs://b/*'])

CREATE VIEW secret.v AS SELECT 1 AS x

CREATE OR REPLACE VIEW ok.v AS SELECT * FROM secret.t

CREATE VIEW IF NOT EXISTS ok.v (x) OPTIONS (description = 'd') AS SELECT x FROM secret.t

CREATE MATERIALIZED VIEW secret.mv AS SELECT COUNT(*) AS n FROM ok.a

CREATE MATERIALIZED VIEW ok.mv PARTITION BY d CLUSTER BY x OPTIONS (enable_refresh = true) AS SELECT d, x FROM secret.t

CREATE MATERIALIZED VIEW ok.mv AS REPLICA OF secret.mv

CREATE FUNCTION secret.fn(x INT64) AS (x + 1)

CREATE OR REPLACE FUNCTION secret.fn(x INT64) RETURNS INT64 LANGUAGE js AS 'return x;'

CREATE FUNCTION ok.fn() AS ((SELECT COUNT(*) FROM secret.t))

CREATE FUNCTION ok.fn(x INT64) AS (secret.other(x))

CREATE TEMP FUNCTION f(x INT64) AS (secret.fn(x))

CREATE TEMP FUNCTION f(x ANY TYPE) AS (x + 1); SELECT f(1) FROM secret.t

CREATE AGGREGATE FUNCTION secret.agg(x INT64) AS (SUM(x))

CREATE FUNCTION secret.remote_fn(x STRING) RETURNS STRING REMOTE WITH CONNECTION `us.conn` OPTIONS (endpoint = 'https://x')

CREATE TABLE FUNCTION secret.tf(n INT64) AS SELECT n

CREATE OR REPLACE TABLE FUNCTION ok.tf(n INT64) RETURNS TABLE<x INT64> AS SELECT x FROM secret.t WHERE x > n

CREATE PROCEDURE secret.p() BEGIN SELECT 1; END

CREATE OR REPLACE PROCEDURE ok.p(x INT64) BEGIN SELECT * FROM secret.t WHERE a = x; END

CREATE PROCEDURE ok.p() BEGIN CALL secret.q(); END

CREATE MODEL secret.m OPTIONS (model_type = 'linear_reg') AS SELECT 1 AS label

CREATE OR REPLACE MODEL ok.m OPTIONS (model_type = 'kmeans') AS SELECT x FROM secret.t

CREATE MODEL IF NOT EXISTS secret.m TRANSFORM (x * 2 AS y) OPTIONS (model_type = 'linear_reg') AS SELECT 1 AS x, 2 AS label

CREATE MODEL secret.m REMOTE WITH CONNECTION `us.conn` OPTIONS (endpoint = 'gemini-2.0-flash')

CREATE SCHEMA secret

CREATE SCHEMA IF NOT EXISTS secret OPTIONS (location = 'US')

CREATE SCHEMA `my-proj`.secret

CREATE SCHEMA `my-proj.secret` DEFAULT COLLATE 'und:ci'

CREATE SCHEMA my-proj.secret

CREATE EXTERNAL SCHEMA secret WITH CONNECTION `us.conn` OPTIONS (external_source = 'x')

DROP SCHEMA secret

DROP SCHEMA secret CASCADE

DROP SCHEMA IF EXISTS `secr\x65t` RESTRICT

DROP SCHEMA `my-proj.secret` CASCADE

ALTER SCHEMA secret SET OPTIONS (default_table_expiration_days = 1)

ALTER SCHEMA IF EXISTS `my-proj`.secret SET DEFAULT COLLATE 'und:ci'

ALTER SCHEMA secret ADD REPLICA `us-east1` OPTIONS (location = 'us-east1')

UNDROP SCHEMA secret

DROP TABLE secret.t

DROP TABLE IF EXISTS `secret.t`

DROP VIEW secret.v

DROP MATERIALIZED VIEW secret.mv

DROP MATERIALIZED VIEW IF EXISTS `my-proj`.secret.mv

DROP SNAPSHOT TABLE secret.snap

DROP EXTERNAL TABLE secret.e

DROP FUNCTION secret.fn

DROP FUNCTION IF EXISTS `secret.fn`

DROP TABLE FUNCTION secret.tf

DROP PROCEDURE secret.p

DROP PROCEDURE IF EXISTS `my-proj`.secret.p

DROP MODEL secret.m

DROP MODEL IF EXISTS `secr\x65t`.m

ALTER TABLE secret.t SET OPTIONS (description = 'x')

ALTER TABLE IF EXISTS secret.t ADD COLUMN c INT64

ALTER TABLE secret.t ADD COLUMN IF NOT EXISTS c STRING, DROP COLUMN d

ALTER TABLE secret.t RENAME TO t2

ALTER TABLE ok.a RENAME TO secret.t

ALTER TABLE secret.t RENAME COLUMN a TO b

ALTER TABLE secret.t ALTER COLUMN a SET DATA TYPE NUMERIC

ALTER TABLE secret.t ALTER COLUMN a DROP NOT NULL

ALTER TABLE secret.t ALTER COLUMN a SET DEFAULT 0

ALTER TABLE ok.a ADD FOREIGN KEY (x) REFERENCES secret.t(y) NOT ENFORCED

ALTER TABLE ok.a ADD CONSTRAINT fk FOREIGN KEY (x) REFERENCES `my-proj.secret.t`(y) NOT ENFORCED

ALTER TABLE secret.t ADD PRIMARY KEY (x) NOT ENFORCED

ALTER TABLE secret.t DROP PRIMARY KEY

ALTER VIEW secret.v SET OPTIONS (description = 'x')

ALTER VIEW secret.v ALTER COLUMN c SET OPTIONS (description = 'y')

ALTER MATERIALIZED VIEW secret.mv SET OPTIONS (enable_refresh = false)

ALTER MODEL secret.m SET OPTIONS (description = 'x')

ALTER TABLE secret.t SET DEFAULT COLLATE 'und:ci'

GRANT `roles/bigquery.dataViewer` ON SCHEMA secret TO 'user:a@example.com'

GRANT `roles/bigquery.dataViewer` ON SCHEMA `my-proj`.secret TO 'user:a@example.com', 'group:g@example.com'

GRANT `roles/bigquery.dataViewer` ON TABLE secret.t TO 'user:a@example.com'

GRANT `roles/bigquery.dataViewer` ON VIEW `secret.v` TO 'user:a@example.com'

GRANT `roles/bigquery.dataViewer` ON EXTERNAL TABLE secret.e TO 'user:a@example.com'

REVOKE `roles/bigquery.dataEditor` ON SCHEMA secret FROM 'user:a@example.com'

REVOKE `roles/bigquery.dataViewer` ON TABLE `secr\x65t`.t FROM 'group:g@example.com'

GRANT SELECT ON TABLE secret.t TO 'user:a@example.com'

CREATE ROW ACCESS POLICY f ON secret.t GRANT TO ('user:a@example.com') FILTER USING (TRUE)

CREATE OR REPLACE ROW ACCESS POLICY f ON ok.a GRANT TO ('domain:example.com') FILTER USING (x IN (SELECT x FROM secret.t))

DROP ROW ACCESS POLICY f ON secret.t

DROP ROW ACCESS POLICY IF EXISTS f ON `secret.t`

DROP ALL ROW ACCESS POLICIES ON secret.t

CREATE SEARCH INDEX i ON secret.t(ALL COLUMNS)

CREATE SEARCH INDEX IF NOT EXISTS i ON secret.t(a, b) OPTIONS (analyzer = 'LOG_ANALYZER')

CREATE VECTOR INDEX i ON secret.t(emb) OPTIONS (index_type = 'IVF')

DROP SEARCH INDEX i ON secret.t

DROP VECTOR INDEX i ON secret.t

LOAD DATA INTO secret.t FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])

LOAD DATA OVERWRITE secret.t (x INT64, y STRING) FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])

LOAD DATA INTO `my-proj.secret.t` PARTITION BY d CLUSTER BY x FROM FILES (format = 'PARQUET', uris = ['gs://b/*'])

LOAD DATA INTO secret.t FROM FILES (format = 'AVRO', uris = ['gs://b/*']) WITH PARTITION COLUMNS (d DATE)

LOAD DATA INTO TEMP TABLE tmp FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])

LOAD DATA INTO secret.t FROM FILES (format = 'CSV', uris = ['gs://b/x.csv']) WITH CONNECTION `us.conn`

EXPORT DATA OPTIONS (uri = 'gs://b/*.csv', format = 'CSV') AS SELECT * FROM secret.t

EXPORT DATA WITH CONNECTION `us.conn` OPTIONS (uri = 'gs://b/*', format = 'PARQUET') AS SELECT * FROM ok.a JOIN secret.t USING (id)

EXPORT MODEL secret.m OPTIONS (uri = 'gs://b/m')

CLONE DATA INTO ok.a FROM secret.t

CALL secret.p()

CALL `secret.p`(1, 'x')

CALL `my-proj`.secret.p((SELECT COUNT(*) FROM ok.a))

CALL ok.p((SELECT MAX(x) FROM secret.t))

CALL BQ.REFRESH_MATERIALIZED_VIEW('secret.mv')

CALL BQ.ABORT_SESSION()

SELECT 1; SELECT * FROM secret.t

SELECT * FROM ok.a; DROP TABLE secret.t;

BEGIN SELECT * FROM secret.t; END

BEGIN
  SELECT 1;
  INSERT INTO secret.t (a) VALUES (1);
EXCEPTION WHEN ERROR THEN
  SELECT * FROM secret.errors;
END

DECLARE n INT64 DEFAULT (SELECT COUNT(*) FROM secret.t)

DECLARE n INT64; SET n = (SELECT COUNT(*) FROM secret.t); SELECT n

IF (SELECT COUNT(*) FROM ok.a) > 0 THEN DROP TABLE secret.t; END IF

IF TRUE THEN SELECT 1; ELSEIF FALSE THEN DELETE FROM secret.t WHERE TRUE; ELSE SELECT 2; END IF

FOR r IN (SELECT * FROM secret.t) DO SELECT r.x; END FOR

WHILE FALSE DO INSERT INTO secret.t VALUES (1); END WHILE

LOOP DELETE FROM secret.t WHERE TRUE; LEAVE; END LOOP

REPEAT SELECT * FROM secret.t; UNTIL TRUE END REPEAT

CASE WHEN TRUE THEN TRUNCATE TABLE secret.t; END CASE

BEGIN TRANSACTION; DELETE secret.t WHERE TRUE; COMMIT TRANSACTION

BEGIN TRANSACTION; UPDATE secret.t SET a = 1 WHERE TRUE; ROLLBACK TRANSACTION;

ASSERT (SELECT COUNT(*) FROM secret.t) > 0 AS 'not empty'

ASSERT EXISTS (SELECT 1 FROM secret.t)

EXECUTE IMMEDIATE 'SELECT * FROM secret.t'

EXECUTE IMMEDIATE CONCAT('SELECT * FROM ', 'secret.t') INTO x

RAISE USING MESSAGE = (SELECT MAX(msg) FROM secret.t)

SELECT * FROM ok.a WHERE x = @param UNION ALL SELECT * FROM secret.t

SELECT * FROM ok.a WHERE x = ? AND y IN (SELECT y FROM secret.t)

SELECT @@project_id, * FROM secret.t

SET @@dataset_id = 'secret'; SELECT * FROM t

SELECT ARRAY_FILTER([1, 2], e -> e > (SELECT MIN(x) FROM secret.t))

SELECT STRUCT((SELECT x FROM secret.t LIMIT 1) AS x) AS s

SELECT [(SELECT x FROM secret.t LIMIT 1)] AS arr

SELECT EXTRACT(YEAR FROM (SELECT MAX(d) FROM secret.t))

SELECT CAST((SELECT x FROM secret.t LIMIT 1) AS STRING)

SELECT * FROM ok.a WHERE x BETWEEN 1 AND (SELECT MAX(x) FROM secret.t)

SELECT * FROM ok.a WHERE x LIKE ANY (SELECT p FROM secret.t)

SELECT * FROM ok.a WINDOW w AS (ORDER BY x) LIMIT 1; SELECT * FROM secret.t

SELECT DISTINCT * EXCEPT (a) REPLACE (b AS c) FROM secret.t

SELECT AS VALUE STRUCT(1 AS a) FROM secret.t

SELECT * FROM ok.a WHERE x IN (SELECT x FROM ok.b WHERE y IN (SELECT y FROM ok.c WHERE z IN (SELECT z FROM secret.t)))

SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT * FROM secret.t)))

SELECT * FROM ok.a JOIN (ok.b JOIN (ok.c JOIN secret.t USING (id)) USING (id)) USING (id)

SELECT * FROM ok.a, (SELECT 1), UNNEST([1]), secret.t, ok.b

SELECT * FROM ok.a WHERE TRUE AND EXISTS (SELECT * FROM ok.b, secret.t)

SELECT * FROM `ok`.`a`, `secret`.`t`

SELECT * FROM `ok.a` JOIN `secret.t` USING (id)

SELECT * FROM `my-proj`.ok.a, `other-proj`.secret.t

SELECT * FROM other-proj.secret.t, my-proj.ok.a

SELECT * FROM proj-1.secret.t

SELECT * FROM `proj.with.dots`.secret.t

SELECT * FROM `secret`.t AS `select`

SELECT `from`.x FROM secret.t AS `from`

SELECT * FROM secret.`table`

SELECT * FROM secret.`select`

SELECT * FROM `secret`.`t` `x`

SELECT * FROM secret.t x, x.arr y, y.inner

SELECT * FROM ok.a, UNNEST(a.arr) WITH OFFSET AS pos, secret.t

SELECT * FROM ok.a CROSS JOIN UNNEST(a.arr) AS e WITH OFFSET off JOIN secret.t ON TRUE

DESCRIBE secret.t

EXPLAIN SELECT * FROM secret.t

ANALYZE secret.t

RENAME TABLE secret.t TO secret.u

DEFINE TABLE secret.t (a = 'b')

CREATE CAPACITY `admin.region-us.commitment` OPTIONS (slot_count = 100)

CREATE RESERVATION `admin.region-us.prod` OPTIONS (slot_capacity = 100)

CREATE ASSIGNMENT `admin.region-us.prod.a1` OPTIONS (assignee = 'projects/p', job_type = 'QUERY')

ALTER PROJECT `my-proj` SET OPTIONS (`region-us.default_time_zone` = 'UTC')

ALTER ORGANIZATION SET OPTIONS (`region-us.default_time_zone` = 'UTC')

ALTER BI_CAPACITY `my-proj.region-us.default` SET OPTIONS (size_gb = 1)

SELECT * FROM ok.a WHERE EXISTS (SELECT 1 FROM UNNEST(a.arr) AS e JOIN secret.t ON e = t.x)

SELECT (SELECT ARRAY_AGG(x) FROM UNNEST(a.arr) AS x), (SELECT 1 FROM secret.t) FROM ok.a

SELECT * FROM UNNEST((SELECT arr FROM secret.t))

SELECT * FROM UNNEST(ARRAY(SELECT x FROM secret.t)) AS v

SELECT * FROM UNNEST(GENERATE_ARRAY(1, 3)) AS n JOIN secret.t ON t.id = n

WITH a AS (SELECT 1 AS id), b AS (SELECT * FROM a JOIN secret.t USING (id)) SELECT * FROM b

WITH a AS (WITH b AS (SELECT * FROM secret.t) SELECT * FROM b) SELECT * FROM a

INSERT INTO ok.a (x) SELECT x FROM secret.t UNION ALL SELECT x FROM ok.b

INSERT INTO ok.a (x) VALUES (1), ((SELECT MAX(x) FROM secret.t))

UPDATE ok.a SET x = 1 WHERE id IN (SELECT id FROM secret.t)

DELETE ok.a AS a WHERE EXISTS (SELECT 1 FROM secret.t AS s WHERE s.id = a.id)

MERGE ok.a T USING ok.b S ON T.id = S.id WHEN MATCHED AND S.x IN (SELECT x FROM secret.t) THEN DELETE

CREATE TABLE ok.n AS WITH c AS (SELECT * FROM secret.t) SELECT * FROM c

CREATE VIEW ok.v AS SELECT * FROM ok.a UNION ALL SELECT * FROM secret.t

CREATE VIEW ok.v AS SELECT secret.fn(x) AS y FROM ok.a

CREATE VIEW ok.v AS SELECT * FROM ML.PREDICT(MODEL secret.m, TABLE ok.a)

SELECT * FROM ok.a TABLESAMPLE SYSTEM (5 PERCENT) JOIN secret.t FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP() USING (id)

SELECT * FROM secret.t FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01' AS x PIVOT (SUM(a) FOR b IN (1, 2))

SELECT 1 FROM ok.a WHERE x = 1 -- ; DROP TABLE secret.t

SELECT 1 FROM ok.a /* ; DROP TABLE secret.t */

SELECT 1 FROM ok.a WHERE s = '; DROP TABLE secret.t'

SELECT 1 FROM ok.a WHERE s = "\"; DROP TABLE secret.t"

SELECT 1 FROM ok.a WHERE s = '\'; DROP TABLE secret.t'

SELECT 1 FROM ok.a WHERE s = '''
'; DROP TABLE secret.t --
'''

SELECT 1 FROM `ok.a; DROP TABLE secret.t`

SELECT `a\`b` FROM secret.t

SELECT * FROM `secret\x2Et`

SELECT * FROM `secret\u002Et`

SELECT * FROM `my-proj\x2Esecret\x2Et`

SELECT * FROM `secret`.`t.u`

SELECT * FROM secret.`t.u.v`

-- Range variables are scoped: a name declared in a CTE, another subquery,
-- behind an explicit alias, or as a DML/DDL target is not visible where
-- the path below it is read, so the path is a table (or view), not a
-- correlated array field.

WITH c AS (SELECT * FROM ok.secret) SELECT * FROM secret.t

WITH c AS (SELECT 1 FROM ok.`region-us`) SELECT * FROM `region-us`.INFORMATION_SCHEMA.JOBS

WITH c AS (SELECT 1 FROM ok.`region-us`) SELECT * FROM region-us.INFORMATION_SCHEMA.JOBS_BY_PROJECT

SELECT (SELECT 1 FROM ok.secret), * FROM secret.t

SELECT * FROM (SELECT * FROM ok.secret), secret.t

SELECT * FROM ok.secret, (SELECT * FROM secret.t)

SELECT * FROM ok.a WHERE x IN (SELECT x FROM ok.secret) UNION ALL SELECT * FROM secret.t

SELECT * FROM ok.secret AS s, secret.t

SELECT * FROM ok.secret AS s, secret.INFORMATION_SCHEMA.TABLES

INSERT INTO ok.secret SELECT * FROM secret.t

CREATE TABLE ok.secret AS SELECT * FROM secret.t

CREATE OR REPLACE VIEW ok.secret AS SELECT * FROM secret.INFORMATION_SCHEMA.COLUMNS

SELECT * FROM ok.tvf(TABLE ok.secret), secret.t

MERGE ok.secret USING secret.t ON TRUE WHEN MATCHED THEN DELETE

UPDATE ok.secret SET x = 1 FROM secret.t WHERE TRUE

SELECT * FROM ok.a AS secret JOIN ok.b ON EXISTS (SELECT 1 FROM secret.arr)

SELECT * FROM ok.a AS a WHERE EXISTS (SELECT 1 FROM a.arr AS e JOIN secret.t ON TRUE)

-- Hints, subtraction next to a path, domain-scoped projects.

SELECT * FROM ok.a JOIN @{join_method = HASH_JOIN} secret.t ON TRUE

SELECT * FROM ok.a HASH JOIN secret.t USING (id)

SELECT * FROM ok.a LEFT JOIN @{x = 1} secret.t USING (id), secret.u

SELECT * FROM secret.t @{force_index = i} JOIN secret.u USING (id)

SELECT 1-secret.fn(1)

SELECT x-secret.fn(1) FROM ok.a

SELECT a.x-secret.fn(1) FROM ok.a AS a

SELECT * FROM ok.a WHERE x = my-proj.secret.fn(1)

SELECT * FROM `example.com:proj.secret.t`

SELECT * FROM `example.com:proj`.secret.t

SELECT * FROM secret.t AS x JOIN secret.u AS y ON x.id = y.id

-- Keywords inside a from-item's expressions (ON, FOR SYSTEM_TIME AS OF)
-- that must not end the FROM list.

SELECT * FROM ok.a JOIN ok.b ON CASE WHEN a.x = 1 THEN TRUE ELSE FALSE END, secret.t

SELECT * FROM ok.a FOR SYSTEM_TIME AS OF CASE WHEN TRUE THEN CURRENT_TIMESTAMP() END, secret.t

SELECT * FROM ok.a JOIN ok.b ON a.x = b.x AND b.y IN (1, 2), secret.t

SELECT * FROM ok.a JOIN ok.b ON a.x IN (SELECT x FROM ok.c), secret.t

SELECT * FROM ok.a JOIN ok.b ON a.s LIKE 'x%', secret.t

SELECT * FROM ok.a JOIN ok.b ON a.x BETWEEN 1 AND 2, secret.t

SELECT * FROM ok.a JOIN ok.b ON a.x IS DISTINCT FROM b.x, secret.t

SELECT * FROM ok.a JOIN ok.b ON EXTRACT(YEAR FROM a.d) = 2024, secret.t

SELECT * FROM ok.a JOIN ok.b ON a.x = ANY (SELECT 1), secret.t

SELECT * FROM ok.a JOIN ok.b ON a.x = b.x CROSS JOIN secret.t

SELECT * FROM ok.a JOIN ok.b ON CAST(a.x AS STRING) = b.s, secret.t

SELECT * FROM ok.a JOIN ok.b ON a.x = b.x JOIN secret.t ON CASE a.x WHEN 1 THEN TRUE END

-- Lexing: where a literal, identifier or comment ends decides what the
-- reader sees as a path.

SELECT 'x'FROM secret.t

SELECT * FROM ok.a/*x*/JOIN/*y*/secret.t USING(id)

SELECT * FROM ok.a WHERE x = '--' || '' UNION ALL SELECT * FROM secret.t

SELECT "'", * FROM secret.t

SELECT '"', * FROM secret.t

SELECT '''a'b''c''', * FROM secret.t

SELECT """a"b""c""", * FROM secret.t

SELECT r'''\'''', * FROM secret.t

SELECT r"\"", * FROM secret.t

SELECT '\\', * FROM secret.t

SELECT b'''x''' FROM secret.t

SELECT `a#b`, `c--d`, `e/*f` FROM secret.t

SELECT 0x1F, 1.5e3, .5, 5. FROM secret.t

SELECT * FROM p-1-2.secret.t

SELECT * FROM proj-0x1F.secret.t

SELECT * FROM secret.1e5

SELECT * FROM secret.t.1x

-- A number that ends in a dot (5.) is one float literal: the FROM after it
-- is a keyword, not a path part.

SELECT 5. FROM secret.t

SELECT 5. FROM ok.a, secret.t

SELECT 1. AS x FROM ok.a JOIN secret.t USING (id)

SELECT * FROM ok.a WHERE x IN (1., 2.) UNION ALL SELECT 3. FROM secret.t

SELECT 5.e1 FROM secret.t

-- Issue 35 (scopes): a select list sees its FROM's range variables, in its
-- subqueries too; nothing else does. Kept in one block for easy merges.

SELECT (SELECT value.int_value FROM UNNEST(e.event_params) WHERE key = 'ga_session_id') AS s FROM `p.analytics_1.events_*` AS e

SELECT (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS session_id FROM `p.analytics_1.events_*` AS e

SELECT ARRAY(SELECT AS STRUCT key FROM e.user_properties) AS props, COALESCE((SELECT MAX(p.value.int_value) FROM e.event_params AS p), 0) AS m FROM ok.events_20240101 e WHERE EXISTS (SELECT 1 FROM e.items)

SELECT (SELECT x FROM t.arr) FROM ok.t

SELECT (SELECT (SELECT y FROM e.arr) FROM ok.u) FROM ok.t AS e

WITH c AS (SELECT (SELECT x FROM e.a) AS x FROM ok.t AS e) SELECT * FROM c

SELECT * EXCEPT (a), (SELECT x FROM e.a) FROM ok.t AS e

SELECT * FROM ok.t AS e QUALIFY ROW_NUMBER() OVER (ORDER BY (SELECT MAX(x) FROM e.a)) = 1

SELECT (SELECT * FROM secret.t) FROM ok.t AS x

WITH c AS (SELECT * FROM secret.t) SELECT * FROM c, ok.u AS secret

SELECT (SELECT 1 FROM secret.t) UNION ALL SELECT 1 FROM ok.u AS secret

SELECT 1 FROM ok.u AS secret UNION ALL SELECT (SELECT 1 FROM secret.t)

SELECT (SELECT 1 FROM secret.x) FROM (SELECT * FROM secret.y), ok.t AS secret

SELECT (SELECT 1 FROM ok.a JOIN ok.b ON EXISTS (SELECT 1 FROM s.x) JOIN ok.c AS s ON TRUE) FROM ok.t

SELECT (SELECT COUNT(*) FROM (SELECT * FROM e.a)) FROM ok.t AS e

SELECT (SELECT 1 FROM secret.t), (SELECT 2 FROM ok.u AS secret) FROM ok.v

INSERT INTO ok.o SELECT (SELECT x FROM e.a) FROM ok.t AS e

SELECT * FROM RANGE_SESSIONIZE(TABLE secret.t, 'r', ['k'])

SELECT * FROM VECTOR_INDEX.STATISTICS(TABLE secret.t)

FROM ok.t |> CALL ML.PREDICT(MODEL secret.m)

FROM ok.t |> CALL secret.tvf(1)

UPDATE ok.t AS x SET a = (SELECT SUM(v) FROM x.arr) WHERE EXISTS (SELECT 1 FROM x.arr)

UPDATE ok.t SET a = (SELECT MAX(v) FROM t.arr) WHERE TRUE

UPDATE ok.t AS x SET a = s.a FROM ok.s AS s, (SELECT 1 FROM x.arr) WHERE TRUE

UPDATE ok.t AS x SET a = 1 FROM x.arr WHERE TRUE

UPDATE ok.t AS secret SET a = 1 FROM secret.orders WHERE TRUE

MERGE ok.t AS T USING ok.s AS S ON T.id = S.id WHEN MATCHED AND (SELECT COUNT(*) FROM T.arr) = 0 THEN DELETE

MERGE ok.t AS T USING (SELECT * FROM T.arr) AS S ON TRUE WHEN MATCHED THEN DELETE

MERGE ok.t AS secret USING secret.orders AS S ON TRUE WHEN MATCHED THEN DELETE

SELECT (SELECT STRING_AGG(c) FROM (SELECT DISTINCT item_category AS c FROM e.items)) FROM ok.events AS e

SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM (SELECT * FROM (SELECT * FROM e.a)))

SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM ok.u AS s, (SELECT * FROM s.a))

SELECT * FROM ok.t AS e, (SELECT (SELECT 1 FROM (SELECT * FROM e.a)))

SELECT (SELECT 1 FROM (WITH c AS (SELECT * FROM e.a) SELECT 1 FROM c)) FROM ok.t AS e

SELECT (SELECT 1 FROM ok.tvf((SELECT * FROM e.a))) FROM ok.t AS e
