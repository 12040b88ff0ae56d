-- Everyday BigQuery SQL, one statement per block (issue 28).
--
-- Each block starts with header comments and ends with a line holding only
-- ";;", so that a statement (a script, a procedure) may hold ';':
--   -- model: what the statement is modelled on
--   -- reads: the datasets it names (the allowlist its test runs under)
--   -- writes            it needs --allow-writes
--   -- refused: <rule>   a documented rule refuses it under an allowlist
--   -- plan: TYPE p.ds.t ...   the dry run's statementType and tables, when
--                             the test's default (from the text) is wrong
--   -- graph: ds.g = ds.t1, ds.t2   a property graph the statement reads and
--                             the tables it is built on, which the test's
--                             INFORMATION_SCHEMA.PROPERTY_GRAPHS serves
-- The statements are written from the shapes of BigQuery's documentation,
-- the GA4 and Universal Analytics export references, dbt and Looker style
-- analytics models and the BigQuery ML tutorials. Datasets: sales,
-- analytics_123456 (a GA4 export), mkt_eu, ml, staging, finance, the
-- public bigquery-public-data datasets and bqutil.fn (community UDFs).
;;
-- model: BigQuery quickstart, revenue per month
-- reads: sales
SELECT DATE_TRUNC(order_date, MONTH) AS month, SUM(amount) AS revenue
FROM sales.orders
GROUP BY month
ORDER BY month
;;
-- model: "top N customers" from the BigQuery docs' aggregate examples
-- reads: sales
SELECT c.customer_id, c.email, SUM(o.amount) AS lifetime_value
FROM sales.orders AS o
JOIN sales.customers AS c ON c.customer_id = o.customer_id
WHERE o.status != 'cancelled'
GROUP BY c.customer_id, c.email
ORDER BY lifetime_value DESC
LIMIT 20
;;
-- model: project-qualified table in backticks, as the console writes it
-- reads: sales
SELECT order_id, status, amount
FROM `p.sales.orders`
WHERE order_date = CURRENT_DATE()
;;
-- model: each part quoted separately, as some BI tools emit
-- reads: sales
SELECT COUNT(*) AS n FROM `p`.`sales`.`orders`
;;
-- model: unquoted project.dataset.table
-- reads: sales
SELECT status, COUNT(*) AS n FROM p.sales.orders GROUP BY status
;;
-- model: a query copied from the console with its trailing semicolon
-- reads: sales
SELECT * FROM sales.customers WHERE country = 'DE' LIMIT 100;
;;
-- model: SELECT * EXCEPT / REPLACE, from the query syntax reference
-- reads: sales
SELECT * EXCEPT (items) REPLACE (ROUND(amount, 2) AS amount)
FROM sales.orders
WHERE order_date >= DATE_SUB(CURRENT_DATE(), INTERVAL 30 DAY)
;;
-- model: COUNTIF and SAFE_DIVIDE KPI rollup (dbt metrics style)
-- reads: sales
SELECT
  region,
  COUNT(*) AS orders,
  COUNTIF(status = 'returned') AS returns,
  SAFE_DIVIDE(COUNTIF(status = 'returned'), COUNT(*)) AS return_rate
FROM sales.orders
GROUP BY region
;;
-- model: GROUP BY ALL (2023 syntax addition)
-- reads: sales
SELECT region, status, DATE_TRUNC(order_date, WEEK(MONDAY)) AS week, SUM(amount) AS revenue
FROM sales.orders
GROUP BY ALL
;;
-- model: LEFT JOIN with COALESCE, customers without orders
-- reads: sales
SELECT c.customer_id, COALESCE(COUNT(o.order_id), 0) AS orders
FROM sales.customers c
LEFT JOIN sales.orders o USING (customer_id)
GROUP BY c.customer_id
HAVING orders = 0
;;
-- model: anti-join with NOT EXISTS
-- reads: sales
SELECT p.sku, p.name
FROM sales.products AS p
WHERE NOT EXISTS (SELECT 1 FROM sales.order_items AS i WHERE i.sku = p.sku)
;;
-- model: IN subquery filter
-- reads: sales
SELECT * FROM sales.orders
WHERE customer_id IN (SELECT customer_id FROM sales.customers WHERE segment = 'enterprise')
;;
-- model: FULL OUTER JOIN reconciliation between two sources (finance close)
-- reads: sales, finance
SELECT
  COALESCE(o.order_id, l.order_id) AS order_id,
  o.amount AS order_amount,
  l.amount AS ledger_amount
FROM sales.orders o
FULL OUTER JOIN finance.ledger l ON o.order_id = l.order_id
WHERE o.order_id IS NULL OR l.order_id IS NULL OR o.amount != l.amount
;;
-- model: currency conversion join to a daily rates table
-- reads: sales, finance
SELECT o.order_id, o.amount * r.rate_to_usd AS amount_usd
FROM sales.orders o
JOIN finance.fx_rates r ON r.currency = o.currency AND r.rate_date = o.order_date
;;
-- model: UNION ALL of two regional tables
-- reads: sales, mkt_eu
SELECT 'sales' AS source, customer_id, email FROM sales.customers
UNION ALL
SELECT 'marketing' AS source, customer_id, email FROM mkt_eu.leads
;;
-- model: EXCEPT DISTINCT to find new keys
-- reads: staging, sales
SELECT order_id FROM staging.orders_raw
EXCEPT DISTINCT
SELECT order_id FROM sales.orders
;;
-- model: INTERSECT DISTINCT
-- reads: sales, mkt_eu
SELECT email FROM sales.customers
INTERSECT DISTINCT
SELECT email FROM mkt_eu.newsletter_subscribers
;;
-- model: UNION ALL BY NAME (set operations by column name)
-- reads: sales
SELECT order_id, amount FROM sales.orders_2023
UNION ALL BY NAME
SELECT amount, order_id FROM sales.orders_2024
;;
-- model: date spine with GENERATE_DATE_ARRAY, left-joined to facts (dbt_utils.date_spine)
-- reads: sales
SELECT d AS day, IFNULL(SUM(o.amount), 0) AS revenue
FROM UNNEST(GENERATE_DATE_ARRAY('2024-01-01', '2024-12-31')) AS d
LEFT JOIN sales.orders o ON o.order_date = d
GROUP BY day
ORDER BY day
;;
-- model: CASE bucketing with RANGE_BUCKET
-- reads: sales
SELECT
  RANGE_BUCKET(amount, [0, 10, 50, 100, 500]) AS bucket,
  CASE WHEN amount < 10 THEN 'small' WHEN amount < 100 THEN 'medium' ELSE 'large' END AS size,
  COUNT(*) AS n
FROM sales.orders
GROUP BY 1, 2
;;
-- model: deterministic sampling with FARM_FINGERPRINT (BigQuery ML best practices)
-- reads: sales
SELECT *
FROM sales.customers
WHERE MOD(ABS(FARM_FINGERPRINT(CAST(customer_id AS STRING))), 10) < 8
;;
-- model: string cleaning functions in a dbt staging model
-- reads: staging
SELECT
  LOWER(TRIM(email)) AS email,
  REGEXP_REPLACE(phone, r'[^0-9+]', '') AS phone,
  INITCAP(first_name) AS first_name,
  SPLIT(full_address, ',')[SAFE_OFFSET(0)] AS street,
  SAFE_CAST(zip AS INT64) AS zip
FROM staging.customers_raw
;;
-- model: URL parsing with NET functions and REGEXP_EXTRACT
-- reads: mkt_eu
SELECT
  NET.HOST(landing_url) AS host,
  NET.REG_DOMAIN(referrer) AS referrer_domain,
  REGEXP_EXTRACT(landing_url, r'utm_campaign=([^&]+)') AS campaign,
  COUNT(*) AS clicks
FROM mkt_eu.clicks
GROUP BY 1, 2, 3
;;
-- model: timestamps and time zones, hourly traffic in local time
-- reads: mkt_eu
SELECT
  EXTRACT(HOUR FROM click_ts AT TIME ZONE 'Europe/Berlin') AS local_hour,
  FORMAT_TIMESTAMP('%A', click_ts, 'Europe/Berlin') AS weekday,
  COUNT(*) AS clicks
FROM mkt_eu.clicks
WHERE click_ts >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 7 DAY)
GROUP BY 1, 2
;;
-- model: approximate aggregates (APPROX_COUNT_DISTINCT, APPROX_QUANTILES, APPROX_TOP_COUNT)
-- reads: sales
SELECT
  APPROX_COUNT_DISTINCT(customer_id) AS customers,
  APPROX_QUANTILES(amount, 100)[OFFSET(50)] AS median_amount,
  APPROX_QUANTILES(amount, 100)[OFFSET(95)] AS p95_amount,
  APPROX_TOP_COUNT(region, 5) AS top_regions
FROM sales.orders
;;
-- model: HLL++ sketches per day, merged for a monthly distinct count
-- reads: sales
WITH daily AS (
  SELECT order_date, HLL_COUNT.INIT(customer_id) AS sketch
  FROM sales.orders
  GROUP BY order_date
)
SELECT DATE_TRUNC(order_date, MONTH) AS month, HLL_COUNT.MERGE(sketch) AS customers
FROM daily
GROUP BY month
;;
-- model: STRING_AGG and ARRAY_AGG DISTINCT
-- reads: sales
SELECT customer_id,
  STRING_AGG(DISTINCT status, ', ' ORDER BY status) AS statuses,
  ARRAY_AGG(DISTINCT region IGNORE NULLS) AS regions
FROM sales.orders
GROUP BY customer_id
;;
-- model: MAX_BY / MIN_BY and ANY_VALUE HAVING MAX (latest value per key)
-- reads: sales
SELECT customer_id,
  MAX_BY(status, created_at) AS latest_status,
  ANY_VALUE(amount HAVING MAX created_at) AS latest_amount,
  MIN_BY(order_id, created_at) AS first_order
FROM sales.orders
GROUP BY customer_id
;;
-- model: latest row per key with ARRAY_AGG ... LIMIT 1 (a classic Stack Overflow answer)
-- reads: staging
SELECT latest.*
FROM (
  SELECT ARRAY_AGG(t ORDER BY updated_at DESC LIMIT 1)[OFFSET(0)] AS latest
  FROM staging.customers_cdc AS t
  GROUP BY customer_id
)
;;
-- model: geospatial distance from each store (BigQuery GIS tutorial)
-- reads: sales
SELECT s.store_id, c.customer_id,
  ST_DISTANCE(ST_GEOGPOINT(s.lng, s.lat), ST_GEOGPOINT(c.lng, c.lat)) / 1000 AS km
FROM sales.stores s
CROSS JOIN sales.customers c
WHERE ST_DWITHIN(ST_GEOGPOINT(s.lng, s.lat), ST_GEOGPOINT(c.lng, c.lat), 10000)
;;
-- model: point in polygon with ST_GEOGFROMTEXT
-- reads: sales
SELECT COUNT(*) AS deliveries_in_zone
FROM sales.deliveries
WHERE ST_WITHIN(ST_GEOGPOINT(lng, lat),
  ST_GEOGFROMTEXT('POLYGON((13.3 52.5, 13.5 52.5, 13.5 52.6, 13.3 52.6, 13.3 52.5))'))
;;
-- model: constants only, no table
-- reads:
SELECT CURRENT_DATE() AS today, CURRENT_TIMESTAMP() AS now, SESSION_USER() AS who
;;
-- model: UNNEST of a literal array, no table
-- reads:
SELECT x, x * x AS square FROM UNNEST(GENERATE_ARRAY(1, 10)) AS x
;;
-- model: a calendar from GENERATE_DATE_ARRAY, no table
-- reads:
SELECT d, FORMAT_DATE('%Y-%m', d) AS month, EXTRACT(DAYOFWEEK FROM d) AS dow
FROM UNNEST(GENERATE_DATE_ARRAY(DATE_TRUNC(CURRENT_DATE(), YEAR), LAST_DAY(CURRENT_DATE(), YEAR))) AS d
;;
-- model: inline test data with a STRUCT array
-- reads:
SELECT name, score
FROM UNNEST([STRUCT('a' AS name, 1 AS score), ('b', 2), ('c', 3)])
ORDER BY score DESC
;;
-- model: WITH RECURSIVE org hierarchy (recursive CTE reference)
-- reads: finance
WITH RECURSIVE chain AS (
  SELECT employee_id, manager_id, 0 AS depth FROM finance.employees WHERE manager_id IS NULL
  UNION ALL
  SELECT e.employee_id, e.manager_id, c.depth + 1
  FROM finance.employees e JOIN chain c ON e.manager_id = c.employee_id
)
SELECT depth, COUNT(*) AS employees FROM chain GROUP BY depth
;;
-- model: correlated scalar subquery in the select list
-- reads: sales
SELECT c.customer_id,
  (SELECT MAX(o.order_date) FROM sales.orders o WHERE o.customer_id = c.customer_id) AS last_order
FROM sales.customers c
;;
-- model: SELECT AS STRUCT / SELECT AS VALUE
-- reads: sales
SELECT AS VALUE STRUCT(customer_id AS id, email AS email)
FROM sales.customers
LIMIT 10
;;
-- model: dates: DATE_DIFF, LAST_DAY, PARSE_DATE from a string column
-- reads: staging
SELECT
  PARSE_DATE('%d/%m/%Y', order_date_text) AS order_date,
  DATE_DIFF(CURRENT_DATE(), PARSE_DATE('%d/%m/%Y', order_date_text), DAY) AS age_days,
  LAST_DAY(PARSE_DATE('%d/%m/%Y', order_date_text), MONTH) AS month_end
FROM staging.orders_raw
WHERE SAFE.PARSE_DATE('%d/%m/%Y', order_date_text) IS NOT NULL
;;
-- model: partition pruning on an ingestion-time partitioned table (_PARTITIONTIME)
-- reads: staging
SELECT * FROM staging.events_raw
WHERE _PARTITIONTIME >= TIMESTAMP(DATE_SUB(CURRENT_DATE(), INTERVAL 3 DAY))
;;
-- model: legacy __TABLES__ meta-table for table sizes (widely copied)
-- reads: sales
SELECT table_id, row_count, ROUND(size_bytes / POW(1024, 3), 2) AS size_gb
FROM sales.__TABLES__
ORDER BY size_bytes DESC
;;
-- model: persistent SQL UDF of the same dataset in a dbt model
-- reads: sales
SELECT sales.normalize_email(email) AS email, COUNT(*) AS n
FROM sales.customers
GROUP BY 1
HAVING n > 1
;;
-- model: table-valued function call (CREATE TABLE FUNCTION docs)
-- reads: sales
-- plan: SELECT p.sales.orders
SELECT * FROM sales.orders_between(DATE '2024-01-01', DATE '2024-03-31')
;;
-- model: community UDFs from bqutil (github.com/GoogleCloudPlatform/bigquery-utils)
-- reads: sales, bqutil.fn
SELECT bqutil.fn.median(ARRAY_AGG(amount)) AS median_amount, region
FROM sales.orders
GROUP BY region
;;
-- model: bqutil.fn.url_parse on click data
-- reads: mkt_eu, bqutil.fn
SELECT bqutil.fn.url_parse(landing_url, 'HOST') AS host, COUNT(*) AS clicks
FROM mkt_eu.clicks
GROUP BY host
;;
-- model: INTERVAL arithmetic and JUSTIFY_INTERVAL
-- reads: sales
SELECT order_id, JUSTIFY_INTERVAL(shipped_at - created_at) AS time_to_ship
FROM sales.shipments
WHERE shipped_at - created_at > INTERVAL 2 DAY
;;
-- model: parenthesised query with ORDER BY outside (set operation docs)
-- reads: sales
(SELECT order_id, amount FROM sales.orders ORDER BY amount DESC LIMIT 5)
UNION ALL
(SELECT order_id, amount FROM sales.orders ORDER BY amount ASC LIMIT 5)
;;
-- model: join hint syntax from the query reference
-- reads: sales
SELECT o.order_id, c.country
FROM sales.orders o
JOIN @{join_method = HASH_JOIN} sales.customers c USING (customer_id)
;;
-- model: CROSS JOIN with a one-row parameters CTE (Looker derived table pattern)
-- reads: sales
WITH params AS (SELECT DATE '2024-01-01' AS start_date, DATE '2024-06-30' AS end_date)
SELECT o.region, SUM(o.amount) AS revenue
FROM sales.orders o CROSS JOIN params
WHERE o.order_date BETWEEN params.start_date AND params.end_date
GROUP BY o.region
;;
-- model: dbt staging-to-mart model with import CTEs (dbt style guide)
-- reads: staging, sales
WITH orders AS (
  SELECT * FROM staging.stg_orders
),
customers AS (
  SELECT * FROM sales.customers
),
customer_orders AS (
  SELECT customer_id, MIN(order_date) AS first_order, MAX(order_date) AS most_recent_order, COUNT(order_id) AS number_of_orders
  FROM orders
  GROUP BY customer_id
),
final AS (
  SELECT customers.customer_id, customers.first_name, customer_orders.first_order,
    customer_orders.most_recent_order, COALESCE(customer_orders.number_of_orders, 0) AS number_of_orders
  FROM customers
  LEFT JOIN customer_orders USING (customer_id)
)
SELECT * FROM final
;;
-- model: dbt jaffle_shop orders model with payment pivot by CASE
-- reads: staging
WITH payments AS (SELECT * FROM staging.stg_payments),
order_payments AS (
  SELECT order_id,
    SUM(CASE WHEN payment_method = 'credit_card' THEN amount ELSE 0 END) AS credit_card_amount,
    SUM(CASE WHEN payment_method = 'coupon' THEN amount ELSE 0 END) AS coupon_amount,
    SUM(amount) AS total_amount
  FROM payments
  GROUP BY order_id
)
SELECT o.order_id, o.customer_id, o.order_date, p.credit_card_amount, p.coupon_amount, p.total_amount
FROM staging.stg_orders o
LEFT JOIN order_payments p USING (order_id)
;;
-- model: dbt incremental model's compiled SELECT (is_incremental filter)
-- reads: staging, sales
SELECT *
FROM staging.stg_orders
WHERE updated_at > (SELECT COALESCE(MAX(updated_at), TIMESTAMP '1970-01-01') FROM sales.fct_orders)
;;
-- model: dbt test "unique" compiled SQL
-- reads: sales
SELECT order_id AS unique_field, COUNT(*) AS n_records
FROM sales.fct_orders
WHERE order_id IS NOT NULL
GROUP BY order_id
HAVING COUNT(*) > 1
;;
-- model: dbt test "relationships" compiled SQL
-- reads: sales
WITH child AS (SELECT customer_id AS from_field FROM sales.fct_orders WHERE customer_id IS NOT NULL),
parent AS (SELECT customer_id AS to_field FROM sales.dim_customers)
SELECT from_field
FROM child
LEFT JOIN parent ON child.from_field = parent.to_field
WHERE parent.to_field IS NULL
;;
-- model: dbt source freshness query
-- reads: staging
SELECT MAX(_loaded_at) AS max_loaded_at, CURRENT_TIMESTAMP() AS snapshotted_at
FROM staging.orders_raw
;;
-- model: dbt-compiled SQL with a leading query comment (query-comment config)
-- reads: sales
/* {"app": "dbt", "dbt_version": "1.8.0", "profile_name": "warehouse", "node_id": "model.shop.fct_revenue"} */
SELECT order_date, SUM(amount) AS revenue FROM sales.fct_orders GROUP BY order_date
;;
-- model: running total with SUM OVER (window function docs)
-- reads: sales
SELECT order_date, daily_revenue,
  SUM(daily_revenue) OVER (ORDER BY order_date ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cumulative_revenue
FROM sales.daily_summary
;;
-- model: 7-day moving average
-- reads: sales
SELECT order_date, daily_revenue,
  AVG(daily_revenue) OVER (ORDER BY order_date ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS ma_7d
FROM sales.daily_summary
ORDER BY order_date
;;
-- model: RANGE window over dates (trailing 30 days by UNIX_DATE)
-- reads: sales
SELECT customer_id, order_date,
  SUM(amount) OVER (PARTITION BY customer_id ORDER BY UNIX_DATE(order_date) RANGE BETWEEN 29 PRECEDING AND CURRENT ROW) AS spend_30d
FROM sales.orders
;;
-- model: LAG / LEAD for period-over-period change
-- reads: sales
SELECT month, revenue,
  LAG(revenue) OVER (ORDER BY month) AS prev_month,
  SAFE_DIVIDE(revenue - LAG(revenue) OVER (ORDER BY month), LAG(revenue) OVER (ORDER BY month)) AS mom_growth,
  LAG(revenue, 12) OVER (ORDER BY month) AS same_month_last_year
FROM sales.monthly_revenue
;;
-- model: RANK / DENSE_RANK / ROW_NUMBER per group
-- reads: sales
SELECT region, sku, revenue,
  RANK() OVER (PARTITION BY region ORDER BY revenue DESC) AS rnk,
  DENSE_RANK() OVER (PARTITION BY region ORDER BY revenue DESC) AS dense_rnk,
  ROW_NUMBER() OVER (PARTITION BY region ORDER BY revenue DESC, sku) AS rn
FROM sales.product_revenue
;;
-- model: NTILE quartiles and PERCENT_RANK
-- reads: sales
SELECT customer_id, lifetime_value,
  NTILE(4) OVER (ORDER BY lifetime_value) AS quartile,
  PERCENT_RANK() OVER (ORDER BY lifetime_value) AS pct_rank,
  CUME_DIST() OVER (ORDER BY lifetime_value) AS cume
FROM sales.customer_ltv
;;
-- model: PERCENTILE_CONT as a window (median per group)
-- reads: sales
SELECT DISTINCT region,
  PERCENTILE_CONT(amount, 0.5) OVER (PARTITION BY region) AS median_amount,
  PERCENTILE_DISC(amount, 0.9) OVER (PARTITION BY region) AS p90_amount
FROM sales.orders
;;
-- model: FIRST_VALUE / LAST_VALUE IGNORE NULLS, forward fill
-- reads: staging
SELECT device_id, ts,
  LAST_VALUE(temperature IGNORE NULLS) OVER (PARTITION BY device_id ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS temperature_filled,
  FIRST_VALUE(ts) OVER (PARTITION BY device_id ORDER BY ts) AS first_seen
FROM staging.sensor_readings
;;
-- model: named WINDOW clause
-- reads: sales
SELECT order_date, amount,
  AVG(amount) OVER w AS avg_amount,
  MAX(amount) OVER w AS max_amount
FROM sales.orders
WINDOW w AS (PARTITION BY region ORDER BY order_date ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)
;;
-- model: sessionization with LAG and a 30-minute gap (web analytics blog pattern)
-- reads: mkt_eu
WITH marked AS (
  SELECT user_id, event_ts,
    IF(TIMESTAMP_DIFF(event_ts, LAG(event_ts) OVER (PARTITION BY user_id ORDER BY event_ts), MINUTE) > 30
       OR LAG(event_ts) OVER (PARTITION BY user_id ORDER BY event_ts) IS NULL, 1, 0) AS new_session
  FROM mkt_eu.web_events
)
SELECT user_id, event_ts,
  SUM(new_session) OVER (PARTITION BY user_id ORDER BY event_ts) AS session_number
FROM marked
;;
-- model: gaps and islands (consecutive login days)
-- reads: mkt_eu
WITH days AS (
  SELECT DISTINCT user_id, DATE(event_ts) AS d FROM mkt_eu.web_events
),
grp AS (
  SELECT user_id, d, DATE_SUB(d, INTERVAL ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY d) DAY) AS island
  FROM days
)
SELECT user_id, MIN(d) AS streak_start, MAX(d) AS streak_end, COUNT(*) AS streak_days
FROM grp
GROUP BY user_id, island
HAVING streak_days >= 7
;;
-- model: share of total with SUM OVER ()
-- reads: sales
SELECT region, SUM(amount) AS revenue,
  SUM(amount) / SUM(SUM(amount)) OVER () AS share
FROM sales.orders
GROUP BY region
;;
-- model: cohort retention matrix (classic analytics blog query)
-- reads: sales
WITH first_orders AS (
  SELECT customer_id, DATE_TRUNC(MIN(order_date), MONTH) AS cohort
  FROM sales.orders GROUP BY customer_id
),
activity AS (
  SELECT DISTINCT o.customer_id, f.cohort,
    DATE_DIFF(DATE_TRUNC(o.order_date, MONTH), f.cohort, MONTH) AS month_number
  FROM sales.orders o JOIN first_orders f USING (customer_id)
)
SELECT cohort, month_number, COUNT(*) AS customers,
  COUNT(*) / FIRST_VALUE(COUNT(*)) OVER (PARTITION BY cohort ORDER BY month_number) AS retention
FROM activity
GROUP BY cohort, month_number
ORDER BY cohort, month_number
;;
-- model: RFM segmentation with NTILE
-- reads: sales
WITH rfm AS (
  SELECT customer_id,
    DATE_DIFF(CURRENT_DATE(), MAX(order_date), DAY) AS recency,
    COUNT(*) AS frequency,
    SUM(amount) AS monetary
  FROM sales.orders
  GROUP BY customer_id
)
SELECT customer_id,
  NTILE(5) OVER (ORDER BY recency DESC) AS r,
  NTILE(5) OVER (ORDER BY frequency) AS f,
  NTILE(5) OVER (ORDER BY monetary) AS m
FROM rfm
;;
-- model: funnel conversion by step with COUNTIF over events
-- reads: mkt_eu
SELECT
  COUNT(DISTINCT IF(step = 'visit', user_id, NULL)) AS visits,
  COUNT(DISTINCT IF(step = 'signup', user_id, NULL)) AS signups,
  COUNT(DISTINCT IF(step = 'purchase', user_id, NULL)) AS purchases
FROM mkt_eu.funnel_events
WHERE event_date BETWEEN '2024-05-01' AND '2024-05-31'
;;
-- model: QUALIFY dedup, the BigQuery docs' QUALIFY example shape
-- reads: staging
SELECT *
FROM staging.orders_raw
QUALIFY ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY _loaded_at DESC) = 1
;;
-- model: QUALIFY with a WHERE clause and a named rank
-- reads: sales
SELECT region, sku, SUM(amount) AS revenue,
  RANK() OVER (PARTITION BY region ORDER BY SUM(amount) DESC) AS rnk
FROM sales.order_lines
WHERE order_date >= '2024-01-01'
GROUP BY region, sku
QUALIFY rnk <= 3
;;
-- model: QUALIFY on the latest snapshot per customer (dbt snapshot consumer)
-- reads: staging
SELECT customer_id, plan, dbt_valid_from
FROM staging.customers_snapshot
WHERE TRUE
QUALIFY dbt_valid_from = MAX(dbt_valid_from) OVER (PARTITION BY customer_id)
;;
-- model: QUALIFY with LAG to keep only changes
-- reads: staging
SELECT product_id, price, changed_at
FROM staging.price_history
QUALIFY price != LAG(price) OVER (PARTITION BY product_id ORDER BY changed_at)
  OR LAG(price) OVER (PARTITION BY product_id ORDER BY changed_at) IS NULL
;;
-- model: QUALIFY over a join
-- reads: sales
SELECT c.customer_id, o.order_id, o.order_date
FROM sales.customers c
JOIN sales.orders o USING (customer_id)
QUALIFY ROW_NUMBER() OVER (PARTITION BY c.customer_id ORDER BY o.order_date) = 1
;;
-- model: QUALIFY inside a CTE
-- reads: sales
WITH last_order AS (
  SELECT * FROM sales.orders
  QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY created_at DESC) = 1
)
SELECT status, COUNT(*) AS customers FROM last_order GROUP BY status
;;
-- model: QUALIFY with COUNT window to keep duplicated keys (data quality check)
-- reads: staging
SELECT *
FROM staging.stg_orders
WHERE TRUE
QUALIFY COUNT(*) OVER (PARTITION BY order_id) > 1
;;
-- model: top product per category with QUALIFY and PERCENT_RANK
-- reads: sales
SELECT category, sku, units
FROM sales.product_sales
QUALIFY PERCENT_RANK() OVER (PARTITION BY category ORDER BY units DESC) <= 0.1
;;
-- model: GROUP BY ROLLUP with GROUPING (docs: GROUP BY ROLLUP)
-- reads: sales
SELECT region, country, SUM(amount) AS revenue, GROUPING(region) AS is_total, GROUPING(country) AS is_region_total
FROM sales.orders
GROUP BY ROLLUP (region, country)
ORDER BY region, country
;;
-- model: GROUP BY CUBE
-- reads: sales
SELECT channel, device, COUNT(*) AS orders
FROM sales.orders
GROUP BY CUBE (channel, device)
;;
-- model: GROUP BY GROUPING SETS
-- reads: sales
SELECT region, product_line, DATE_TRUNC(order_date, QUARTER) AS quarter, SUM(amount) AS revenue
FROM sales.order_lines
GROUP BY GROUPING SETS ((region, product_line), (region, quarter), (quarter), ())
;;
-- model: ROLLUP by year, month with subtotals labelled
-- reads: sales
SELECT
  IFNULL(CAST(EXTRACT(YEAR FROM order_date) AS STRING), 'All years') AS year,
  IFNULL(CAST(EXTRACT(MONTH FROM order_date) AS STRING), 'All months') AS month,
  SUM(amount) AS revenue
FROM sales.orders
GROUP BY ROLLUP (EXTRACT(YEAR FROM order_date), EXTRACT(MONTH FROM order_date))
;;
-- model: GROUPING SETS on GA4 device and geo
-- reads: analytics_123456
SELECT device.category AS device_category, geo.country AS country, COUNT(DISTINCT user_pseudo_id) AS users
FROM `p.analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY GROUPING SETS ((device.category), (geo.country), (device.category, geo.country))
;;
-- model: CUBE with HAVING on the totals row
-- reads: mkt_eu
SELECT campaign, country, SUM(spend) AS spend
FROM mkt_eu.ad_spend
GROUP BY CUBE (campaign, country)
HAVING SUM(spend) > 1000
;;
-- model: PIVOT docs example (quarterly produce sales)
-- reads: sales
SELECT * FROM sales.quarterly_produce
PIVOT (SUM(sales) FOR quarter IN ('Q1', 'Q2', 'Q3', 'Q4'))
;;
-- model: PIVOT over a subquery with aliased values
-- reads: sales
SELECT * FROM (
  SELECT region, FORMAT_DATE('%b', order_date) AS mon, amount
  FROM sales.orders
  WHERE EXTRACT(YEAR FROM order_date) = 2024
)
PIVOT (SUM(amount) AS revenue, COUNT(*) AS n FOR mon IN ('Jan' AS jan, 'Feb' AS feb, 'Mar' AS mar))
;;
-- model: PIVOT with a table alias before it
-- reads: mkt_eu
SELECT * FROM mkt_eu.channel_daily AS c
PIVOT (SUM(sessions) FOR channel IN ('organic', 'paid', 'email', 'social'))
WHERE day >= '2024-01-01'
;;
-- model: UNPIVOT docs example
-- reads: sales
SELECT * FROM sales.quarterly_wide
UNPIVOT (sales FOR quarter IN (Q1, Q2, Q3, Q4))
;;
-- model: UNPIVOT INCLUDE NULLS with aliases
-- reads: finance
SELECT account, period, value
FROM finance.budget_wide
UNPIVOT INCLUDE NULLS (value FOR period IN (jan AS '2024-01', feb AS '2024-02', mar AS '2024-03'))
;;
-- model: UNPIVOT of multiple column groups
-- reads: sales
SELECT * FROM sales.targets_wide
UNPIVOT ((target, actual) FOR half IN ((h1_target, h1_actual) AS 'H1', (h2_target, h2_actual) AS 'H2'))
;;
-- model: PIVOT inside a CTE, joined afterwards
-- reads: sales
WITH p AS (
  SELECT * FROM (SELECT customer_id, status, amount FROM sales.orders)
  PIVOT (SUM(amount) FOR status IN ('completed', 'returned', 'cancelled'))
)
SELECT c.email, p.* EXCEPT (customer_id)
FROM p JOIN sales.customers c USING (customer_id)
;;
-- model: TABLESAMPLE SYSTEM (docs: table sampling)
-- reads: sales
SELECT * FROM sales.orders TABLESAMPLE SYSTEM (10 PERCENT)
;;
-- model: TABLESAMPLE on a GA4 daily table for a quick look
-- reads: analytics_123456
SELECT event_name, COUNT(*) AS n
FROM analytics_123456.events_20240115 TABLESAMPLE SYSTEM (1 PERCENT)
GROUP BY event_name
;;
-- model: TABLESAMPLE with an alias in a join
-- reads: sales
SELECT o.order_id, c.country
FROM sales.orders AS o TABLESAMPLE SYSTEM (5 PERCENT)
JOIN sales.customers AS c USING (customer_id)
;;
-- model: TABLESAMPLE with RAND() for row-level sampling
-- reads: mkt_eu
SELECT * FROM mkt_eu.clicks TABLESAMPLE SYSTEM (20 PERCENT)
WHERE RAND() < 0.1
;;
-- model: time travel (docs: access historical data)
-- reads: sales
SELECT * FROM sales.orders
FOR SYSTEM_TIME AS OF TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 HOUR)
;;
-- model: time travel to restore deleted rows (compare now and then)
-- reads: sales
SELECT order_id FROM sales.orders FOR SYSTEM_TIME AS OF TIMESTAMP '2024-06-01 00:00:00+00'
EXCEPT DISTINCT
SELECT order_id FROM sales.orders
;;
-- model: time travel with an alias after FOR SYSTEM_TIME AS OF
-- reads: sales
SELECT prev.order_id, prev.status AS old_status, cur.status AS new_status
FROM sales.orders FOR SYSTEM_TIME AS OF TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 DAY) AS prev
JOIN sales.orders AS cur USING (order_id)
WHERE prev.status != cur.status
;;
-- model: time travel on a project-qualified table
-- reads: staging
SELECT COUNT(*) FROM `p.staging.customers_raw` FOR SYSTEM_TIME AS OF TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 6 DAY)
;;
-- model: wildcard table with _TABLE_SUFFIX (docs: querying wildcard tables)
-- reads: sales
SELECT _TABLE_SUFFIX AS year, COUNT(*) AS orders
FROM `p.sales.orders_*`
WHERE _TABLE_SUFFIX BETWEEN '2021' AND '2024'
GROUP BY year
;;
-- model: wildcard table with a longer prefix
-- reads: sales
SELECT * FROM sales.orders_2024*
WHERE _TABLE_SUFFIX IN ('01', '02', '03')
;;
-- model: GA4 export, daily active users (GA4 BigQuery export basic queries)
-- reads: analytics_123456
SELECT PARSE_DATE('%Y%m%d', event_date) AS day, COUNT(DISTINCT user_pseudo_id) AS active_users
FROM `p.analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY day
ORDER BY day
;;
-- model: GA4 page views by page_location with a scalar UNNEST subquery
-- reads: analytics_123456
SELECT
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location') AS page_location,
  COUNT(*) AS page_views
FROM `analytics_123456.events_*`
WHERE event_name = 'page_view'
  AND _TABLE_SUFFIX BETWEEN FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 7 DAY))
                        AND FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
GROUP BY page_location
ORDER BY page_views DESC
LIMIT 50
;;
-- model: GA4 sessions from ga_session_id (GA4 export cookbook)
-- reads: analytics_123456
SELECT COUNT(DISTINCT CONCAT(user_pseudo_id,
  CAST((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS STRING))) AS sessions
FROM analytics_123456.events_*
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
;;
-- model: GA4 engaged sessions and engagement rate
-- reads: analytics_123456
WITH s AS (
  SELECT user_pseudo_id,
    (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS session_id,
    MAX((SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'session_engaged')) AS engaged
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  GROUP BY 1, 2
)
SELECT COUNT(*) AS sessions, COUNTIF(engaged = '1') AS engaged_sessions,
  SAFE_DIVIDE(COUNTIF(engaged = '1'), COUNT(*)) AS engagement_rate
FROM s
;;
-- model: GA4 flatten every event parameter with CROSS JOIN UNNEST
-- reads: analytics_123456
SELECT event_name, ep.key,
  COALESCE(ep.value.string_value, CAST(ep.value.int_value AS STRING),
           CAST(ep.value.double_value AS STRING), CAST(ep.value.float_value AS STRING)) AS value,
  COUNT(*) AS n
FROM `p.analytics_123456.events_20240115`
CROSS JOIN UNNEST(event_params) AS ep
GROUP BY 1, 2, 3
ORDER BY n DESC
;;
-- model: GA4 comma-join UNNEST of event_params, filtered on key
-- reads: analytics_123456
SELECT ep.value.string_value AS page_title, COUNT(*) AS views
FROM analytics_123456.events_*, UNNEST(event_params) AS ep
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
  AND event_name = 'page_view' AND ep.key = 'page_title'
GROUP BY page_title
;;
-- model: GA4 ecommerce purchases and revenue per day
-- reads: analytics_123456
SELECT event_date,
  COUNT(DISTINCT ecommerce.transaction_id) AS transactions,
  SUM(ecommerce.purchase_revenue_in_usd) AS revenue
FROM `analytics_123456.events_*`
WHERE event_name = 'purchase' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240331'
GROUP BY event_date
;;
-- model: GA4 items array, top products by revenue
-- reads: analytics_123456
SELECT item.item_name, item.item_category, SUM(item.quantity) AS units, SUM(item.item_revenue) AS revenue
FROM `analytics_123456.events_*`, UNNEST(items) AS item
WHERE event_name = 'purchase' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY 1, 2
ORDER BY revenue DESC
LIMIT 25
;;
-- model: GA4 traffic source / medium of new users
-- reads: analytics_123456
SELECT traffic_source.source, traffic_source.medium, COUNT(DISTINCT user_pseudo_id) AS new_users
FROM `analytics_123456.events_*`
WHERE event_name = 'first_visit' AND _TABLE_SUFFIX LIKE '202405%'
GROUP BY 1, 2
ORDER BY new_users DESC
;;
-- model: GA4 session source from collected_traffic_source (2023 export fields)
-- reads: analytics_123456
SELECT
  COALESCE(collected_traffic_source.manual_source, '(direct)') AS source,
  COALESCE(collected_traffic_source.manual_medium, '(none)') AS medium,
  COUNT(*) AS session_starts
FROM analytics_123456.events_*
WHERE event_name = 'session_start' AND _TABLE_SUFFIX BETWEEN '20240601' AND '20240630'
GROUP BY source, medium
;;
-- model: GA4 landing pages (first page_view per session with QUALIFY)
-- reads: analytics_123456
SELECT page AS landing_page, COUNT(*) AS sessions
FROM (
  SELECT user_pseudo_id,
    (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS session_id,
    (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location') AS page,
    event_timestamp
  FROM `analytics_123456.events_*`
  WHERE event_name = 'page_view' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  QUALIFY ROW_NUMBER() OVER (PARTITION BY user_pseudo_id, session_id ORDER BY event_timestamp) = 1
)
GROUP BY landing_page
ORDER BY sessions DESC
;;
-- model: GA4 ecommerce funnel with COUNTIF per event_name
-- reads: analytics_123456
SELECT
  COUNT(DISTINCT IF(event_name = 'view_item', user_pseudo_id, NULL)) AS viewed,
  COUNT(DISTINCT IF(event_name = 'add_to_cart', user_pseudo_id, NULL)) AS added,
  COUNT(DISTINCT IF(event_name = 'begin_checkout', user_pseudo_id, NULL)) AS checkout,
  COUNT(DISTINCT IF(event_name = 'purchase', user_pseudo_id, NULL)) AS purchased
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
;;
-- model: GA4 user properties UNNEST
-- reads: analytics_123456
SELECT up.key, up.value.string_value AS value, COUNT(DISTINCT user_pseudo_id) AS users
FROM analytics_123456.events_20240115, UNNEST(user_properties) AS up
GROUP BY 1, 2
;;
-- model: GA4 device and geo breakdown
-- reads: analytics_123456
SELECT device.category, device.operating_system, geo.country, geo.city, COUNT(DISTINCT user_pseudo_id) AS users
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
GROUP BY 1, 2, 3, 4
ORDER BY users DESC
;;
-- model: GA4 daily plus intraday tables (REPLACE on _TABLE_SUFFIX)
-- reads: analytics_123456
SELECT PARSE_DATE('%Y%m%d', REPLACE(_TABLE_SUFFIX, 'intraday_', '')) AS day, COUNT(*) AS events
FROM `p.analytics_123456.events_*`
WHERE REPLACE(_TABLE_SUFFIX, 'intraday_', '') >= FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 3 DAY))
GROUP BY day
;;
-- model: GA4 intraday table only
-- reads: analytics_123456
SELECT event_name, COUNT(*) AS n
FROM `analytics_123456.events_intraday_*`
GROUP BY event_name
;;
-- model: GA4 user engagement time in minutes
-- reads: analytics_123456
SELECT user_pseudo_id,
  SUM((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'engagement_time_msec')) / 60000 AS engaged_minutes
FROM `analytics_123456.events_*`
WHERE event_name = 'user_engagement' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY user_pseudo_id
;;
-- model: GA4 new vs returning (ga_session_number)
-- reads: analytics_123456
SELECT
  IF((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_number') = 1, 'new', 'returning') AS user_type,
  COUNT(DISTINCT user_pseudo_id) AS users
FROM analytics_123456.events_*
WHERE event_name = 'session_start' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY user_type
;;
-- model: GA4 scroll depth (percent_scrolled)
-- reads: analytics_123456
SELECT
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location') AS page,
  COUNTIF((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'percent_scrolled') = 90) AS scrolled_90
FROM `analytics_123456.events_*`
WHERE event_name = 'scroll' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY page
;;
-- model: GA4 page path navigation with LEAD (next page)
-- reads: analytics_123456
WITH pv AS (
  SELECT user_pseudo_id, event_timestamp,
    (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS session_id,
    REGEXP_EXTRACT((SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location'), r'https?://[^/]+(/[^?#]*)') AS path
  FROM `analytics_123456.events_*`
  WHERE event_name = 'page_view' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
)
SELECT path, LEAD(path) OVER (PARTITION BY user_pseudo_id, session_id ORDER BY event_timestamp) AS next_path
FROM pv
;;
-- model: GA4 events per hour of day from TIMESTAMP_MICROS
-- reads: analytics_123456
SELECT EXTRACT(HOUR FROM TIMESTAMP_MICROS(event_timestamp) AT TIME ZONE 'America/New_York') AS hour, COUNT(*) AS events
FROM analytics_123456.events_20240115
GROUP BY hour
ORDER BY hour
;;
-- model: GA4 site search terms (view_search_results)
-- reads: analytics_123456
SELECT LOWER((SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'search_term')) AS term, COUNT(*) AS searches
FROM `analytics_123456.events_*`
WHERE event_name = 'view_search_results' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY term
ORDER BY searches DESC
;;
-- model: GA4 default channel grouping approximation with CASE
-- reads: analytics_123456
SELECT
  CASE
    WHEN traffic_source.source = '(direct)' AND traffic_source.medium IN ('(not set)', '(none)') THEN 'Direct'
    WHEN REGEXP_CONTAINS(traffic_source.medium, r'^(.*cp.*|ppc|paid.*)$') THEN 'Paid Search'
    WHEN traffic_source.medium = 'organic' THEN 'Organic Search'
    WHEN traffic_source.medium = 'email' THEN 'Email'
    WHEN traffic_source.medium = 'referral' THEN 'Referral'
    ELSE 'Unassigned'
  END AS channel,
  COUNT(DISTINCT user_pseudo_id) AS users
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY channel
;;
-- model: GA4 DAU/MAU stickiness
-- reads: analytics_123456
WITH daily AS (
  SELECT PARSE_DATE('%Y%m%d', event_date) AS day, user_pseudo_id
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240331'
  GROUP BY 1, 2
)
SELECT d.day, COUNT(DISTINCT d.user_pseudo_id) AS dau,
  (SELECT COUNT(DISTINCT m.user_pseudo_id) FROM daily m WHERE m.day BETWEEN DATE_SUB(d.day, INTERVAL 29 DAY) AND d.day) AS mau
FROM daily d
GROUP BY d.day
;;
-- model: GA4 retention by first_touch week
-- reads: analytics_123456
WITH users AS (
  SELECT user_pseudo_id, DATE_TRUNC(DATE(TIMESTAMP_MICROS(MIN(user_first_touch_timestamp))), WEEK) AS cohort_week
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240331'
  GROUP BY user_pseudo_id
),
activity AS (
  SELECT DISTINCT user_pseudo_id, DATE_TRUNC(PARSE_DATE('%Y%m%d', event_date), WEEK) AS active_week
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240331'
)
SELECT cohort_week, DATE_DIFF(active_week, cohort_week, WEEK) AS week_n, COUNT(DISTINCT user_pseudo_id) AS users
FROM users JOIN activity USING (user_pseudo_id)
GROUP BY 1, 2
;;
-- model: GA4 conversion rate by source joined to ad spend
-- reads: analytics_123456, mkt_eu
WITH conv AS (
  SELECT traffic_source.source AS source, COUNTIF(event_name = 'purchase') AS purchases
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  GROUP BY source
)
SELECT conv.source, conv.purchases, s.spend, SAFE_DIVIDE(s.spend, conv.purchases) AS cpa
FROM conv
LEFT JOIN mkt_eu.ad_spend_by_source s USING (source)
;;
-- model: GA4 user_id stitching to a CRM table
-- reads: analytics_123456, sales
SELECT c.customer_id, c.segment, COUNT(*) AS events
FROM `analytics_123456.events_*` e
JOIN sales.customers c ON c.web_user_id = e.user_id
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131' AND e.user_id IS NOT NULL
GROUP BY 1, 2
;;
-- model: GA4 bounce rate (sessions not engaged)
-- reads: analytics_123456
SELECT
  1 - SAFE_DIVIDE(
    COUNT(DISTINCT IF((SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'session_engaged') = '1',
      CONCAT(user_pseudo_id, CAST((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS STRING)), NULL)),
    COUNT(DISTINCT CONCAT(user_pseudo_id, CAST((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS STRING)))
  ) AS bounce_rate
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
;;
-- model: GA4 first ten rows of yesterday's table
-- reads: analytics_123456
SELECT * FROM analytics_123456.events_20240115 LIMIT 10
;;
-- model: GA4 sample ecommerce dataset from bigquery-public-data (GA4 docs' sample queries)
-- reads: bigquery-public-data.ga4_obfuscated_sample_ecommerce
SELECT event_name, COUNT(*) AS event_count
FROM `bigquery-public-data.ga4_obfuscated_sample_ecommerce.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20201201' AND '20201202'
GROUP BY event_name
ORDER BY event_count DESC
;;
-- model: GA4 sample dataset, purchasers per traffic medium, unquoted public project
-- reads: bigquery-public-data.ga4_obfuscated_sample_ecommerce
SELECT traffic_source.medium, COUNT(DISTINCT user_pseudo_id) AS purchasers
FROM bigquery-public-data.ga4_obfuscated_sample_ecommerce.events_20210131
WHERE event_name = 'purchase'
GROUP BY 1
;;
-- model: Universal Analytics export (ga_sessions_*) totals and hits
-- reads: mkt_eu
SELECT date, SUM(totals.visits) AS sessions, SUM(totals.pageviews) AS pageviews, SUM(totals.transactions) AS transactions
FROM `mkt_eu.ga_sessions_*`
WHERE _TABLE_SUFFIX BETWEEN '20230101' AND '20230131'
GROUP BY date
;;
-- model: Universal Analytics hits with implicit UNNEST through an alias
-- reads: mkt_eu
SELECT h.page.pagePath, COUNT(*) AS pageviews
FROM `mkt_eu.ga_sessions_*` AS s, s.hits AS h
WHERE _TABLE_SUFFIX BETWEEN '20230101' AND '20230107' AND h.type = 'PAGE'
GROUP BY 1
ORDER BY pageviews DESC
;;
-- model: Google Analytics sample (bigquery-public-data.google_analytics_sample) product revenue
-- reads: bigquery-public-data.google_analytics_sample
SELECT p.v2ProductName, SUM(p.productRevenue) / 1e6 AS revenue
FROM `bigquery-public-data.google_analytics_sample.ga_sessions_*`, UNNEST(hits) AS h, UNNEST(h.product) AS p
WHERE _TABLE_SUFFIX BETWEEN '20170701' AND '20170731' AND p.productRevenue IS NOT NULL
GROUP BY 1
ORDER BY revenue DESC
;;
-- model: bigquery-public-data.samples.shakespeare (BigQuery quickstart)
-- reads: bigquery-public-data.samples
SELECT word, SUM(word_count) AS count
FROM `bigquery-public-data.samples.shakespeare`
WHERE word LIKE '%raisin%'
GROUP BY word
;;
-- model: bigquery-public-data.usa_names (BigQuery console quickstart)
-- reads: bigquery-public-data.usa_names
SELECT name, SUM(number) AS total
FROM `bigquery-public-data.usa_names.usa_1910_2013`
GROUP BY name
ORDER BY total DESC
LIMIT 10
;;
-- model: thelook_ecommerce public dataset, monthly orders by status (Looker demo)
-- reads: bigquery-public-data.thelook_ecommerce
SELECT DATE_TRUNC(DATE(created_at), MONTH) AS month, status, COUNT(*) AS orders
FROM `bigquery-public-data.thelook_ecommerce.orders`
GROUP BY 1, 2
ORDER BY 1
;;
-- model: Stack Overflow public dataset tag counts (BigQuery public datasets blog)
-- reads: bigquery-public-data.stackoverflow
SELECT tag, COUNT(*) AS questions
FROM `bigquery-public-data.stackoverflow.posts_questions`, UNNEST(SPLIT(tags, '|')) AS tag
WHERE EXTRACT(YEAR FROM creation_date) = 2022
GROUP BY tag
ORDER BY questions DESC
LIMIT 20
;;
-- model: public data joined with own data (weather by store)
-- reads: sales, bigquery-public-data.noaa_gsod
SELECT s.store_id, w.date, w.temp, SUM(o.amount) AS revenue
FROM sales.orders o
JOIN sales.stores s USING (store_id)
JOIN `bigquery-public-data.noaa_gsod.gsod2024` w ON w.stn = s.weather_station AND w.date = o.order_date
GROUP BY 1, 2, 3
;;
-- model: order total from an ARRAY<STRUCT> of line items (docs: work with arrays)
-- reads: sales
SELECT order_id, (SELECT SUM(i.qty * i.price) FROM UNNEST(items) AS i) AS total
FROM sales.orders
;;
-- model: CROSS JOIN UNNEST WITH OFFSET of nested line items
-- reads: sales
SELECT o.order_id, pos, item.sku, item.qty
FROM sales.orders AS o
CROSS JOIN UNNEST(o.items) AS item WITH OFFSET AS pos
;;
-- model: implicit UNNEST of an array column through the table alias
-- reads: sales
SELECT o.order_id, item.sku
FROM sales.orders o, o.items item
WHERE item.qty > 10
;;
-- model: LEFT JOIN UNNEST to keep orders without items
-- reads: sales
SELECT o.order_id, COUNT(item.sku) AS n_items
FROM sales.orders o
LEFT JOIN UNNEST(o.items) AS item
GROUP BY o.order_id
;;
-- model: EXISTS over an array of structs
-- reads: sales
SELECT order_id FROM sales.orders
WHERE EXISTS (SELECT 1 FROM UNNEST(items) WHERE sku = 'SKU-123' AND qty >= 2)
;;
-- model: ARRAY_AGG of STRUCTs to build nested rows (denormalising for BI)
-- reads: sales
SELECT c.customer_id,
  ARRAY_AGG(STRUCT(o.order_id, o.order_date, o.amount) ORDER BY o.order_date DESC LIMIT 5) AS recent_orders
FROM sales.customers c
JOIN sales.orders o USING (customer_id)
GROUP BY c.customer_id
;;
-- model: ARRAY(SELECT AS STRUCT ...) to filter and reshape an array
-- reads: sales
SELECT order_id,
  ARRAY(SELECT AS STRUCT sku, qty * price AS line_total FROM UNNEST(items) WHERE qty > 0 ORDER BY line_total DESC) AS lines
FROM sales.orders
;;
-- model: safe array indexing and ARRAY_LENGTH
-- reads: sales
SELECT order_id, ARRAY_LENGTH(items) AS n, items[SAFE_OFFSET(0)].sku AS first_sku, items[SAFE_ORDINAL(2)].sku AS second_sku
FROM sales.orders
WHERE ARRAY_LENGTH(items) > 0
;;
-- model: nested STRUCT fields (address.city) and ARRAY_TO_STRING
-- reads: sales
SELECT address.city, address.zip, ARRAY_TO_STRING(tags, ',') AS tags
FROM sales.customers
WHERE address.country = 'FR'
;;
-- model: IN UNNEST of a literal array
-- reads: sales
SELECT * FROM sales.orders WHERE status IN UNNEST(['shipped', 'delivered'])
;;
-- model: ARRAY_CONCAT_AGG and ARRAY_CONCAT
-- reads: sales
SELECT customer_id, ARRAY_CONCAT_AGG(items) AS all_items, ARRAY_CONCAT(['a'], ['b']) AS demo
FROM sales.orders
GROUP BY customer_id
;;
-- model: unnest two levels (orders -> items -> discounts)
-- reads: sales
SELECT o.order_id, i.sku, d.code, d.amount
FROM sales.orders o, UNNEST(o.items) i, UNNEST(i.discounts) d
;;
-- model: GENERATE_TIMESTAMP_ARRAY to fill hourly gaps
-- reads: mkt_eu
SELECT h AS hour, COUNT(c.click_id) AS clicks
FROM UNNEST(GENERATE_TIMESTAMP_ARRAY(TIMESTAMP '2024-05-01', TIMESTAMP '2024-05-02', INTERVAL 1 HOUR)) AS h
LEFT JOIN mkt_eu.clicks c ON TIMESTAMP_TRUNC(c.click_ts, HOUR) = h
GROUP BY hour
;;
-- model: STRUCT comparison and TO_JSON_STRING for debugging rows
-- reads: staging
SELECT TO_JSON_STRING(t) AS row_json
FROM staging.orders_raw AS t
LIMIT 5
;;
-- model: JSON_VALUE and JSON_QUERY on a JSON column (docs: JSON functions)
-- reads: staging
SELECT
  JSON_VALUE(payload, '$.event') AS event,
  JSON_VALUE(payload, '$.user.id') AS user_id,
  JSON_QUERY(payload, '$.user.traits') AS traits
FROM staging.webhooks
WHERE JSON_VALUE(payload, '$.event') = 'order.created'
;;
-- model: legacy JSON_EXTRACT_SCALAR on a STRING column
-- reads: staging
SELECT JSON_EXTRACT_SCALAR(raw, '$.order.id') AS order_id, CAST(JSON_EXTRACT_SCALAR(raw, '$.order.total') AS NUMERIC) AS total
FROM staging.webhooks_raw
;;
-- model: JSON_QUERY_ARRAY with UNNEST (line items inside a JSON payload)
-- reads: staging
SELECT JSON_VALUE(payload, '$.id') AS order_id,
  JSON_VALUE(item, '$.sku') AS sku,
  LAX_INT64(item.quantity) AS qty
FROM staging.webhooks, UNNEST(JSON_QUERY_ARRAY(payload, '$.line_items')) AS item
;;
-- model: JSON field access with dot notation and subscript on the JSON type
-- reads: staging
SELECT STRING(payload.customer.email) AS email, INT64(payload.items[0].quantity) AS first_qty
FROM staging.webhooks
;;
-- model: PARSE_JSON and JSON_TYPE
-- reads: staging
SELECT JSON_TYPE(PARSE_JSON(raw)) AS t, COUNT(*) AS n
FROM staging.webhooks_raw
GROUP BY t
;;
-- model: TO_JSON and JSON_OBJECT to build API payloads
-- reads: sales
SELECT JSON_OBJECT('id', order_id, 'total', amount, 'items', TO_JSON(items)) AS body
FROM sales.orders
LIMIT 100
;;
-- model: JSON_VALUE_ARRAY and JSON_KEYS
-- reads: staging
SELECT JSON_VALUE_ARRAY(payload, '$.tags') AS tags, JSON_KEYS(payload) AS keys
FROM staging.webhooks
;;
-- model: JSON_EXTRACT_ARRAY of a string column with CROSS JOIN UNNEST
-- reads: staging
SELECT JSON_EXTRACT_SCALAR(e, '$.name') AS name
FROM staging.webhooks_raw CROSS JOIN UNNEST(JSON_EXTRACT_ARRAY(raw, '$.events')) AS e
;;
-- model: SAFE.PARSE_JSON to skip bad rows
-- reads: staging
SELECT COUNTIF(SAFE.PARSE_JSON(raw) IS NULL) AS bad_rows, COUNT(*) AS rows
FROM staging.webhooks_raw
;;
-- model: pipe syntax from the docs' introduction (FROM |> WHERE |> AGGREGATE)
-- reads: sales
FROM sales.orders
|> WHERE order_date >= '2024-01-01'
|> AGGREGATE SUM(amount) AS revenue, COUNT(*) AS orders GROUP BY region
|> ORDER BY revenue DESC
;;
-- model: pipe syntax starting with SELECT
-- reads: sales
SELECT * FROM sales.orders
|> WHERE status = 'shipped'
|> LIMIT 100
;;
-- model: pipe EXTEND and SELECT
-- reads: sales
FROM sales.orders
|> EXTEND amount * 0.19 AS vat, DATE_TRUNC(order_date, MONTH) AS month
|> SELECT order_id, month, amount, vat
;;
-- model: pipe JOIN ... USING then AGGREGATE
-- reads: sales
FROM sales.orders AS o
|> JOIN sales.customers AS c USING (customer_id)
|> AGGREGATE COUNT(*) AS orders, SUM(o.amount) AS revenue GROUP BY c.country
|> ORDER BY revenue DESC
|> LIMIT 10
;;
-- model: pipe LEFT JOIN with ON
-- reads: sales, finance
FROM sales.orders
|> LEFT JOIN finance.ledger AS l ON l.order_id = orders.order_id
|> WHERE l.order_id IS NULL
|> SELECT orders.order_id, orders.amount
;;
-- model: pipe over GA4 events_* with _TABLE_SUFFIX
-- reads: analytics_123456
FROM `analytics_123456.events_*`
|> WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
|> AGGREGATE COUNT(DISTINCT user_pseudo_id) AS users GROUP BY event_date
|> ORDER BY event_date
;;
-- model: pipe AGGREGATE with GROUP AND ORDER BY
-- reads: sales
FROM sales.orders
|> AGGREGATE SUM(amount) AS revenue GROUP AND ORDER BY region, status
;;
-- model: pipe SET, DROP and RENAME
-- reads: staging
FROM staging.customers_raw
|> SET email = LOWER(email)
|> DROP internal_notes
|> RENAME cust_id AS customer_id
;;
-- model: pipe AS alias and a window in EXTEND
-- reads: sales
FROM sales.daily_summary
|> AS d
|> EXTEND AVG(d.daily_revenue) OVER (ORDER BY d.order_date ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS ma_7d
|> WHERE d.order_date >= '2024-01-01'
;;
-- model: pipe PIVOT
-- reads: sales
FROM sales.quarterly_produce
|> PIVOT (SUM(sales) FOR quarter IN ('Q1', 'Q2', 'Q3', 'Q4'))
;;
-- model: pipe UNPIVOT
-- reads: sales
FROM sales.quarterly_wide
|> UNPIVOT (sales FOR quarter IN (Q1, Q2, Q3, Q4))
|> WHERE sales > 0
;;
-- model: pipe TABLESAMPLE
-- reads: mkt_eu
FROM mkt_eu.clicks
|> TABLESAMPLE SYSTEM (1 PERCENT)
|> AGGREGATE COUNT(*) AS clicks GROUP BY campaign
;;
-- model: pipe UNION ALL with a parenthesised FROM query
-- reads: sales
FROM sales.orders_2023
|> SELECT order_id, amount
|> UNION ALL (FROM sales.orders_2024 |> SELECT order_id, amount)
|> AGGREGATE SUM(amount) AS total
;;
-- model: pipe CROSS JOIN UNNEST of a nested array
-- reads: sales
FROM sales.orders
|> CROSS JOIN UNNEST(items) AS item
|> AGGREGATE SUM(item.qty) AS units GROUP BY item.sku
|> ORDER BY units DESC
|> LIMIT 20
;;
-- model: pipe CALL of a table-valued function
-- reads: sales
FROM sales.orders
|> WHERE region = 'EMEA'
|> CALL sales.top_n_by_amount(5)
;;
-- model: pipe syntax inside a CTE, the main query in standard syntax
-- reads: sales
WITH recent AS (
  FROM sales.orders
  |> WHERE order_date >= DATE_SUB(CURRENT_DATE(), INTERVAL 7 DAY)
)
SELECT region, COUNT(*) AS orders FROM recent GROUP BY region
;;
-- model: pipe QUALIFY-equivalent: EXTEND a ROW_NUMBER then WHERE
-- reads: staging
FROM staging.orders_raw
|> EXTEND ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY _loaded_at DESC) AS rn
|> WHERE rn = 1
|> DROP rn
;;
-- model: pipe starting from a subquery in parentheses
-- reads: sales
(SELECT customer_id, amount FROM sales.orders)
|> AGGREGATE SUM(amount) AS spend GROUP BY customer_id
|> WHERE spend > 1000
;;
-- model: pipe DISTINCT and ORDER BY ... LIMIT OFFSET
-- reads: sales
FROM sales.customers
|> SELECT country
|> DISTINCT
|> ORDER BY country
|> LIMIT 10 OFFSET 10
;;
-- model: pipe with a JSON extraction over webhooks
-- reads: staging
FROM staging.webhooks
|> EXTEND JSON_VALUE(payload, '$.event') AS event
|> AGGREGATE COUNT(*) AS n GROUP BY event
;;
-- model: pipe over a time-travelled table
-- reads: sales
FROM sales.orders FOR SYSTEM_TIME AS OF TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 2 HOUR)
|> AGGREGATE COUNT(*) AS n
;;
-- model: pipe INTERSECT DISTINCT and EXCEPT DISTINCT
-- reads: sales, mkt_eu
FROM sales.customers
|> SELECT email
|> EXCEPT DISTINCT (FROM mkt_eu.unsubscribed |> SELECT email)
;;
-- model: pipe WITH a GA4 scalar subquery and WHERE on it
-- reads: analytics_123456
FROM analytics_123456.events_20240115
|> WHERE event_name = 'page_view'
|> EXTEND (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location') AS page
|> AGGREGATE COUNT(*) AS views GROUP BY page
|> ORDER BY views DESC
;;
-- model: pipe on the public shakespeare sample (pipe syntax launch blog)
-- reads: bigquery-public-data.samples
FROM `bigquery-public-data.samples.shakespeare`
|> WHERE LENGTH(word) > 10
|> AGGREGATE SUM(word_count) AS n GROUP BY corpus
|> ORDER BY n DESC
;;
-- model: ML.PREDICT with MODEL and TABLE (BigQuery ML churn tutorial)
-- reads: ml
SELECT user_id, predicted_churned, predicted_churned_probs
FROM ML.PREDICT(MODEL ml.churn_model, TABLE ml.churn_features)
;;
-- model: ML.PREDICT with a subquery (census income classification tutorial)
-- reads: ml, sales
SELECT customer_id, predicted_label, prob.prob AS probability
FROM ML.PREDICT(MODEL `p.ml.churn_model`,
  (SELECT customer_id, tenure_days, orders_90d, avg_amount FROM sales.customer_features WHERE snapshot_date = CURRENT_DATE())),
  UNNEST(predicted_label_probs) AS prob
WHERE prob.label = 1
;;
-- model: ML.PREDICT with a threshold STRUCT
-- reads: ml
SELECT * FROM ML.PREDICT(MODEL ml.fraud_model, TABLE ml.transactions_today, STRUCT(0.7 AS threshold))
;;
-- model: ML.EVALUATE default evaluation
-- reads: ml
SELECT * FROM ML.EVALUATE(MODEL ml.churn_model)
;;
-- model: ML.EVALUATE on a held-out table
-- reads: ml
SELECT * FROM ML.EVALUATE(MODEL ml.churn_model, TABLE ml.churn_eval)
;;
-- model: ML.EVALUATE with a subquery and threshold
-- reads: ml
SELECT precision, recall, accuracy, f1_score, roc_auc
FROM ML.EVALUATE(MODEL ml.churn_model,
  (SELECT * FROM ml.churn_features WHERE split = 'test'), STRUCT(0.55 AS threshold))
;;
-- model: ML.FORECAST of an ARIMA_PLUS model (time series forecasting tutorial)
-- reads: ml
SELECT forecast_timestamp, forecast_value, prediction_interval_lower_bound, prediction_interval_upper_bound
FROM ML.FORECAST(MODEL ml.daily_sales_arima, STRUCT(30 AS horizon, 0.9 AS confidence_level))
;;
-- model: ML.EXPLAIN_FORECAST
-- reads: ml
SELECT * FROM ML.EXPLAIN_FORECAST(MODEL ml.daily_sales_arima, STRUCT(14 AS horizon))
;;
-- model: ML.EXPLAIN_PREDICT with top_k_features
-- reads: ml
SELECT * FROM ML.EXPLAIN_PREDICT(MODEL ml.churn_model, TABLE ml.churn_features, STRUCT(3 AS top_k_features))
;;
-- model: ML.GLOBAL_EXPLAIN and ML.FEATURE_IMPORTANCE
-- reads: ml
SELECT * FROM ML.GLOBAL_EXPLAIN(MODEL ml.churn_model)
;;
-- model: ML.FEATURE_IMPORTANCE of a boosted tree
-- reads: ml
SELECT feature, importance_gain FROM ML.FEATURE_IMPORTANCE(MODEL ml.ltv_boosted) ORDER BY importance_gain DESC
;;
-- model: ML.TRAINING_INFO
-- reads: ml
SELECT iteration, loss, eval_loss, duration_ms FROM ML.TRAINING_INFO(MODEL ml.churn_model) ORDER BY iteration
;;
-- model: ML.CONFUSION_MATRIX and ML.ROC_CURVE
-- reads: ml
SELECT * FROM ML.ROC_CURVE(MODEL ml.churn_model, TABLE ml.churn_eval)
;;
-- model: ML.CONFUSION_MATRIX with a subquery
-- reads: ml
SELECT * FROM ML.CONFUSION_MATRIX(MODEL ml.churn_model, (SELECT * FROM ml.churn_features WHERE split = 'test'))
;;
-- model: ML.WEIGHTS of a linear model
-- reads: ml
SELECT processed_input, weight FROM ML.WEIGHTS(MODEL ml.ltv_linear, STRUCT(true AS standardize))
;;
-- model: ML.CENTROIDS and ML.PREDICT of a k-means model (customer segmentation tutorial)
-- reads: ml, sales
SELECT centroid_id, COUNT(*) AS customers, AVG(orders_90d) AS avg_orders
FROM ML.PREDICT(MODEL ml.customer_segments, (SELECT * FROM sales.customer_features))
GROUP BY centroid_id
;;
-- model: ML.DETECT_ANOMALIES on an ARIMA_PLUS model with new data
-- reads: ml, sales
SELECT * FROM ML.DETECT_ANOMALIES(MODEL ml.daily_sales_arima,
  STRUCT(0.95 AS anomaly_prob_threshold),
  (SELECT order_date, daily_revenue FROM sales.daily_summary WHERE order_date >= '2024-06-01'))
WHERE is_anomaly
;;
-- model: ML.RECOMMEND of a matrix factorization model (movie recommendations tutorial)
-- reads: ml
SELECT * FROM ML.RECOMMEND(MODEL ml.product_recs, (SELECT DISTINCT user_id FROM ml.ratings LIMIT 100))
;;
-- model: ML.ARIMA_EVALUATE and ML.ARIMA_COEFFICIENTS
-- reads: ml
SELECT * FROM ML.ARIMA_EVALUATE(MODEL ml.daily_sales_arima)
;;
-- model: a prediction joined back to the customer table in a CTE
-- reads: ml, sales
WITH scored AS (
  SELECT customer_id, predicted_churned FROM ML.PREDICT(MODEL ml.churn_model, TABLE sales.customer_features)
)
SELECT c.email, s.predicted_churned
FROM scored s JOIN sales.customers c USING (customer_id)
WHERE s.predicted_churned
;;
-- model: AI.FORECAST with TimesFM (no model needed)
-- reads: sales
SELECT * FROM AI.FORECAST(TABLE sales.daily_summary, data_col => 'daily_revenue', timestamp_col => 'order_date', horizon => 30)
;;
-- model: VECTOR_SEARCH with a query subquery (vector search tutorial)
-- reads: ml
SELECT base.doc_id, base.title, distance
FROM VECTOR_SEARCH(TABLE ml.doc_embeddings, 'embedding',
  (SELECT embedding FROM ml.query_embeddings WHERE query_id = 42),
  top_k => 5, distance_type => 'COSINE')
;;
-- model: VECTOR_SEARCH with TABLE queries and options
-- reads: ml
SELECT query.query_id, base.doc_id, distance
FROM VECTOR_SEARCH(TABLE ml.doc_embeddings, 'embedding', TABLE ml.query_embeddings, 'embedding',
  top_k => 10, options => '{"fraction_lists_to_search": 0.01}')
;;
-- model: VECTOR_SEARCH over a subquery base with a filter
-- reads: ml, sales
SELECT base.sku, distance
FROM VECTOR_SEARCH(
  (SELECT sku, embedding FROM ml.product_embeddings WHERE in_stock),
  'embedding',
  (SELECT embedding FROM ml.product_embeddings WHERE sku = 'SKU-1'),
  top_k => 20)
JOIN sales.products p ON p.sku = base.sku
;;
-- model: ML.DISTANCE between embeddings (scalar, no MODEL)
-- reads: ml
SELECT a.doc_id, b.doc_id AS other, ML.DISTANCE(a.embedding, b.embedding, 'COSINE') AS d
FROM ml.doc_embeddings a JOIN ml.doc_embeddings b ON a.doc_id < b.doc_id
WHERE a.doc_id = 7
;;
-- model: temporary SQL function followed by one query (UDF docs)
-- reads: sales
CREATE TEMP FUNCTION add_one(x INT64) AS (x + 1);
SELECT add_one(qty) AS qty_plus_one FROM sales.order_items
;;
-- model: temporary JavaScript UDF followed by one query (JavaScript UDF docs)
-- reads: mkt_eu
CREATE TEMP FUNCTION browser_of(ua STRING)
RETURNS STRING
LANGUAGE js AS r"""
  if (!ua) return null;
  if (ua.indexOf('Firefox') >= 0) return 'Firefox';
  if (ua.indexOf('Chrome') >= 0) return 'Chrome';
  return 'Other';
""";
SELECT browser_of(user_agent) AS browser, COUNT(*) AS sessions
FROM mkt_eu.sessions
GROUP BY browser
;;
-- model: GA4 helper temp function for event params (popular GA4 SQL snippet)
-- reads: analytics_123456
CREATE TEMP FUNCTION get_param_str(params ANY TYPE, k STRING) AS (
  (SELECT value.string_value FROM UNNEST(params) WHERE key = k)
);
SELECT get_param_str(event_params, 'page_location') AS page, COUNT(*) AS views
FROM `analytics_123456.events_*`
WHERE event_name = 'page_view' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY page
;;
-- model: two temporary functions then a query
-- reads: analytics_123456
CREATE TEMPORARY FUNCTION param_int(params ANY TYPE, k STRING) AS (
  (SELECT value.int_value FROM UNNEST(params) WHERE key = k)
);
CREATE TEMPORARY FUNCTION param_str(params ANY TYPE, k STRING) AS (
  (SELECT value.string_value FROM UNNEST(params) WHERE key = k)
);
SELECT user_pseudo_id, param_int(event_params, 'ga_session_id') AS session_id, param_str(event_params, 'page_title') AS title
FROM analytics_123456.events_20240115
WHERE event_name = 'page_view';
;;
-- model: temp function with a trailing semicolon after the query
-- reads: sales
CREATE TEMP FUNCTION net(amount NUMERIC, vat_rate NUMERIC) AS (amount / (1 + vat_rate));
SELECT order_id, net(amount, 0.19) AS net_amount FROM sales.orders;
;;
-- model: temp aggregate function (SQL UDAF docs)
-- reads: sales
CREATE TEMP AGGREGATE FUNCTION scaled_sum(dividend FLOAT64, divisor FLOAT64 NOT AGGREGATE)
RETURNS FLOAT64
AS (SUM(dividend) / divisor);
SELECT region, scaled_sum(amount, 1000) AS revenue_k FROM sales.orders GROUP BY region
;;
-- model: temp function followed by a WITH query
-- reads: sales
CREATE TEMP FUNCTION fiscal_quarter(d DATE) AS (
  CONCAT('FY', CAST(EXTRACT(YEAR FROM DATE_ADD(d, INTERVAL 3 MONTH)) AS STRING), '-Q',
         CAST(EXTRACT(QUARTER FROM DATE_ADD(d, INTERVAL 3 MONTH)) AS STRING))
);
WITH q AS (SELECT fiscal_quarter(order_date) AS fq, amount FROM sales.orders)
SELECT fq, SUM(amount) AS revenue FROM q GROUP BY fq ORDER BY fq
;;
-- model: temp function followed by a pipe query that starts with FROM
-- reads: sales
CREATE TEMP FUNCTION is_weekend(d DATE) AS (EXTRACT(DAYOFWEEK FROM d) IN (1, 7));
FROM sales.orders
|> WHERE is_weekend(order_date)
|> AGGREGATE SUM(amount) AS weekend_revenue
;;
-- model: temp function whose body reads a table (UDFs referencing tables)
-- reads: sales
CREATE TEMP FUNCTION region_of(cid INT64) AS (
  (SELECT region FROM sales.customers WHERE customer_id = cid)
);
SELECT region_of(customer_id) AS region, COUNT(*) AS orders FROM sales.orders GROUP BY region
;;
-- model: temp JavaScript UDF returning an ARRAY<STRUCT> (JSON parsing in JS)
-- reads: staging
CREATE TEMP FUNCTION parse_items(json STRING)
RETURNS ARRAY<STRUCT<sku STRING, qty INT64>>
LANGUAGE js AS """
  return JSON.parse(json).map(i => ({sku: i.sku, qty: i.qty}));
""";
SELECT order_id, item.sku, item.qty
FROM staging.orders_raw, UNNEST(parse_items(items_json)) AS item
;;
-- model: temp function calling a persistent UDF of the same dataset
-- reads: sales
CREATE TEMP FUNCTION clean(email STRING) AS (sales.normalize_email(TRIM(email)));
SELECT clean(email) AS email FROM sales.customers
;;
-- model: temp JavaScript UDF with a haversine distance (geo blog post)
-- reads: sales
CREATE TEMPORARY FUNCTION haversine_km(lat1 FLOAT64, lon1 FLOAT64, lat2 FLOAT64, lon2 FLOAT64)
RETURNS FLOAT64
LANGUAGE js AS """
  const r = Math.PI / 180;
  const a = Math.sin((lat2 - lat1) * r / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin((lon2 - lon1) * r / 2) ** 2;
  return 12742 * Math.asin(Math.sqrt(a));
""";
SELECT s.store_id, AVG(haversine_km(s.lat, s.lng, d.lat, d.lng)) AS avg_km
FROM sales.deliveries d JOIN sales.stores s USING (store_id)
GROUP BY s.store_id
;;
-- model: temp function on GA4 public sample data
-- reads: bigquery-public-data.ga4_obfuscated_sample_ecommerce
CREATE TEMP FUNCTION event_param(params ANY TYPE, k STRING) AS (
  (SELECT COALESCE(value.string_value, CAST(value.int_value AS STRING)) FROM UNNEST(params) WHERE key = k)
);
SELECT event_param(event_params, 'page_title') AS title, COUNT(*) AS n
FROM `bigquery-public-data.ga4_obfuscated_sample_ecommerce.events_20210131`
GROUP BY title
ORDER BY n DESC
;;
-- model: dataset INFORMATION_SCHEMA.COLUMNS (docs: COLUMNS view)
-- reads: sales
SELECT table_name, column_name, data_type, is_nullable
FROM sales.INFORMATION_SCHEMA.COLUMNS
WHERE table_name = 'orders'
ORDER BY ordinal_position
;;
-- model: dataset INFORMATION_SCHEMA.TABLES of the GA4 export
-- reads: analytics_123456
SELECT table_name, creation_time
FROM `p.analytics_123456.INFORMATION_SCHEMA.TABLES`
WHERE table_name LIKE 'events_2024%'
ORDER BY table_name DESC
;;
-- model: dataset INFORMATION_SCHEMA.PARTITIONS
-- reads: sales
SELECT table_name, partition_id, total_rows, total_logical_bytes
FROM sales.INFORMATION_SCHEMA.PARTITIONS
WHERE table_name = 'orders'
ORDER BY partition_id DESC
LIMIT 30
;;
-- model: dataset INFORMATION_SCHEMA.COLUMN_FIELD_PATHS for nested fields
-- reads: analytics_123456
SELECT field_path, data_type
FROM analytics_123456.INFORMATION_SCHEMA.COLUMN_FIELD_PATHS
WHERE table_name = 'events_20240115' AND field_path LIKE 'event_params%'
;;
-- model: dataset INFORMATION_SCHEMA.VIEWS (find views that mention a table)
-- reads: sales
SELECT table_name, view_definition
FROM sales.INFORMATION_SCHEMA.VIEWS
WHERE REGEXP_CONTAINS(view_definition, r'orders')
;;
-- model: dataset INFORMATION_SCHEMA.TABLE_OPTIONS
-- reads: staging
SELECT table_name, option_name, option_value
FROM staging.INFORMATION_SCHEMA.TABLE_OPTIONS
WHERE option_name IN ('expiration_timestamp', 'partition_expiration_days')
;;
-- model: dataset INFORMATION_SCHEMA.ROUTINES
-- reads: sales
SELECT routine_name, routine_type, created FROM sales.INFORMATION_SCHEMA.ROUTINES
;;
-- model: change history with APPENDS (docs: work with change history)
-- reads: sales
SELECT * FROM APPENDS(TABLE sales.orders, TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 DAY), NULL)
;;
-- model: GAP_FILL time series function (docs: time series functions)
-- reads: staging
SELECT * FROM GAP_FILL(
  TABLE staging.sensor_readings,
  ts_column => 'ts',
  bucket_width => INTERVAL 1 MINUTE,
  partitioning_columns => ['device_id'],
  value_columns => [('temperature', 'linear')])
;;
-- model: TIMESTAMP_BUCKET and DATE_BUCKET for time series
-- reads: staging
SELECT TIMESTAMP_BUCKET(ts, INTERVAL 15 MINUTE) AS bucket, device_id, AVG(temperature) AS t
FROM staging.sensor_readings
GROUP BY bucket, device_id
;;
-- model: AEAD decryption with a keyset table (docs: AEAD encryption concepts)
-- reads: finance
SELECT c.customer_id, AEAD.DECRYPT_STRING(k.keyset, c.ssn_encrypted, CAST(c.customer_id AS STRING)) AS ssn
FROM finance.customers_encrypted c
JOIN finance.keysets k USING (customer_id)
;;
-- model: KLL quantile sketches
-- reads: sales
SELECT KLL_QUANTILES.EXTRACT_INT64(KLL_QUANTILES.INIT_INT64(CAST(amount AS INT64), 100), 4) AS quartiles
FROM sales.orders
;;
-- model: ST_CLUSTERDBSCAN as a window over delivery points
-- reads: sales
SELECT delivery_id, ST_CLUSTERDBSCAN(ST_GEOGPOINT(lng, lat), 500, 5) OVER () AS cluster
FROM sales.deliveries
WHERE delivery_date = CURRENT_DATE()
;;
-- model: INSERT ... SELECT daily aggregate (scheduled query pattern)
-- reads: sales
-- writes
INSERT INTO sales.daily_summary (order_date, orders, daily_revenue)
SELECT order_date, COUNT(*), SUM(amount)
FROM sales.orders
WHERE order_date = DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY)
GROUP BY order_date
;;
-- model: INSERT ... SELECT from staging into the mart with a CTE
-- reads: staging, sales
-- writes
INSERT INTO sales.fct_orders
WITH deduped AS (
  SELECT * FROM staging.stg_orders
  QUALIFY ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY updated_at DESC) = 1
)
SELECT * FROM deduped WHERE order_id NOT IN (SELECT order_id FROM sales.fct_orders)
;;
-- model: INSERT VALUES with several rows (DML docs)
-- reads: sales
-- writes
INSERT INTO sales.products (sku, name, price) VALUES
  ('SKU-1', 'Widget', 9.99),
  ('SKU-2', 'Gadget', 19.99),
  ('SKU-3', 'Doohickey', 4.50)
;;
-- model: INSERT VALUES with nested ARRAY<STRUCT> and DEFAULT
-- reads: sales
-- writes
INSERT sales.orders (order_id, customer_id, order_date, status, items)
VALUES (1001, 42, CURRENT_DATE(), DEFAULT, [STRUCT('SKU-1' AS sku, 2 AS qty, 9.99 AS price)])
;;
-- model: INSERT INTO a project-qualified table with a column list and SELECT
-- reads: mkt_eu, analytics_123456
-- writes
INSERT INTO `p.mkt_eu.daily_users` (day, users)
SELECT PARSE_DATE('%Y%m%d', event_date), COUNT(DISTINCT user_pseudo_id)
FROM `p.analytics_123456.events_*`
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
GROUP BY 1
;;
-- model: INSERT with a JSON literal
-- reads: staging
-- writes
INSERT INTO staging.webhooks (received_at, payload)
VALUES (CURRENT_TIMESTAMP(), JSON '{"event": "test", "user": {"id": "1"}}')
;;
-- model: INSERT of ML predictions into a scoring table
-- reads: ml, sales
-- writes
INSERT INTO sales.churn_scores (customer_id, score, scored_at)
SELECT customer_id, p.prob, CURRENT_TIMESTAMP()
FROM ML.PREDICT(MODEL ml.churn_model, TABLE sales.customer_features), UNNEST(predicted_churned_probs) AS p
WHERE p.label
;;
-- model: UPDATE with WHERE (DML docs)
-- reads: sales
-- writes
UPDATE sales.orders SET status = 'cancelled' WHERE status = 'pending' AND created_at < TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 30 DAY)
;;
-- model: UPDATE ... FROM a staging table (DML docs: UPDATE using joins)
-- reads: sales, staging
-- writes
UPDATE sales.customers c
SET email = s.email, updated_at = CURRENT_TIMESTAMP()
FROM staging.customer_updates s
WHERE c.customer_id = s.customer_id
;;
-- model: UPDATE ... FROM a subquery
-- reads: sales
-- writes
UPDATE sales.customers
SET lifetime_value = t.ltv
FROM (SELECT customer_id, SUM(amount) AS ltv FROM sales.orders GROUP BY customer_id) AS t
WHERE customers.customer_id = t.customer_id
;;
-- model: UPDATE of a nested repeated field (DML docs: nested and repeated)
-- reads: sales
-- writes
UPDATE sales.orders
SET items = ARRAY(SELECT AS STRUCT * REPLACE (price * 0.9 AS price) FROM UNNEST(items))
WHERE order_date = CURRENT_DATE() AND region = 'EMEA'
;;
-- model: UPDATE of a JSON column with JSON_SET
-- reads: staging
-- writes
UPDATE staging.webhooks SET payload = JSON_SET(payload, '$.processed', TRUE) WHERE JSON_VALUE(payload, '$.event') = 'order.created'
;;
-- model: DELETE with WHERE
-- reads: staging
-- writes
DELETE FROM staging.orders_raw WHERE _loaded_at < TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 90 DAY)
;;
-- model: DELETE without FROM, with a subquery (GDPR erasure request)
-- reads: sales, mkt_eu
-- writes
DELETE sales.customers
WHERE customer_id IN (SELECT customer_id FROM mkt_eu.erasure_requests WHERE processed = FALSE)
;;
-- model: DELETE WHERE TRUE
-- reads: staging
-- writes
DELETE FROM `p.staging.tmp_orders` WHERE TRUE
;;
-- model: DELETE duplicates keeping one row via a correlated subquery
-- reads: staging
-- writes
DELETE FROM staging.stg_orders t
WHERE EXISTS (SELECT 1 FROM staging.stg_orders u WHERE u.order_id = t.order_id AND u.updated_at > t.updated_at)
;;
-- model: MERGE upsert (DML docs: MERGE)
-- reads: sales, staging
-- writes
MERGE sales.customers T
USING staging.customer_updates S
ON T.customer_id = S.customer_id
WHEN MATCHED THEN
  UPDATE SET email = S.email, country = S.country, updated_at = S.updated_at
WHEN NOT MATCHED THEN
  INSERT (customer_id, email, country, updated_at) VALUES (S.customer_id, S.email, S.country, S.updated_at)
;;
-- model: MERGE with WHEN NOT MATCHED BY SOURCE THEN DELETE (full sync)
-- reads: sales, staging
-- writes
MERGE INTO sales.products AS t
USING staging.products_feed AS s
ON t.sku = s.sku
WHEN MATCHED AND t.price != s.price THEN UPDATE SET price = s.price
WHEN NOT MATCHED BY TARGET THEN INSERT ROW
WHEN NOT MATCHED BY SOURCE THEN DELETE
;;
-- model: MERGE with a deduplicating subquery as the source (dbt incremental merge strategy)
-- reads: sales, staging
-- writes
MERGE INTO `p.sales.fct_orders` AS DBT_INTERNAL_DEST
USING (
  SELECT * FROM staging.stg_orders
  WHERE updated_at > (SELECT MAX(updated_at) FROM sales.fct_orders)
  QUALIFY ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY updated_at DESC) = 1
) AS DBT_INTERNAL_SOURCE
ON DBT_INTERNAL_SOURCE.order_id = DBT_INTERNAL_DEST.order_id
WHEN MATCHED THEN UPDATE SET status = DBT_INTERNAL_SOURCE.status, amount = DBT_INTERNAL_SOURCE.amount, updated_at = DBT_INTERNAL_SOURCE.updated_at
WHEN NOT MATCHED THEN INSERT (order_id, customer_id, status, amount, updated_at)
  VALUES (order_id, customer_id, status, amount, updated_at)
;;
-- model: MERGE for an SCD type 2 dimension (close old rows, insert new ones)
-- reads: sales, staging
-- writes
MERGE sales.dim_customers t
USING (
  SELECT s.customer_id AS join_key, s.* FROM staging.customer_updates s
  UNION ALL
  SELECT NULL, s.* FROM staging.customer_updates s
  JOIN sales.dim_customers d ON d.customer_id = s.customer_id AND d.is_current AND d.email != s.email
) u
ON t.customer_id = u.join_key AND t.is_current
WHEN MATCHED AND t.email != u.email THEN
  UPDATE SET is_current = FALSE, valid_to = CURRENT_TIMESTAMP()
WHEN NOT MATCHED THEN
  INSERT (customer_id, email, is_current, valid_from, valid_to) VALUES (u.customer_id, u.email, TRUE, CURRENT_TIMESTAMP(), NULL)
;;
-- model: MERGE with a partition filter on the target (docs: MERGE and partition pruning)
-- reads: sales, staging
-- writes
MERGE sales.daily_summary t
USING (SELECT order_date, COUNT(*) AS orders, SUM(amount) AS revenue FROM staging.stg_orders GROUP BY order_date) s
ON t.order_date = s.order_date AND t.order_date >= DATE_SUB(CURRENT_DATE(), INTERVAL 7 DAY)
WHEN MATCHED THEN UPDATE SET orders = s.orders, daily_revenue = s.revenue
WHEN NOT MATCHED THEN INSERT (order_date, orders, daily_revenue) VALUES (s.order_date, s.orders, s.revenue)
;;
-- model: MERGE that only deletes matched rows
-- reads: mkt_eu
-- writes
MERGE mkt_eu.newsletter_subscribers t
USING mkt_eu.unsubscribed s
ON t.email = s.email
WHEN MATCHED THEN DELETE
;;
-- model: TRUNCATE TABLE (DML docs)
-- reads: staging
-- writes
TRUNCATE TABLE staging.tmp_orders
;;
-- model: TRUNCATE TABLE project-qualified
-- reads: staging
-- writes
TRUNCATE TABLE `p.staging.stg_payments`
;;
-- model: LOAD DATA from Cloud Storage (docs: LOAD DATA statement)
-- reads: staging
-- writes
-- refused: external-files
LOAD DATA INTO staging.orders_raw
FROM FILES (format = 'CSV', skip_leading_rows = 1, uris = ['gs://acme-landing/orders/2024-06-01/*.csv'])
;;
-- model: INSERT with a pipe query source
-- reads: sales
-- writes
INSERT INTO sales.region_totals (region, revenue)
FROM sales.orders
|> AGGREGATE SUM(amount) AS revenue GROUP BY region
;;
-- model: CREATE TABLE with a schema, PARTITION BY and CLUSTER BY (DDL docs)
-- reads: sales
-- writes
CREATE TABLE IF NOT EXISTS sales.order_events (
  event_id STRING NOT NULL,
  order_id INT64,
  event_ts TIMESTAMP,
  payload JSON,
  items ARRAY<STRUCT<sku STRING, qty INT64>>
)
PARTITION BY DATE(event_ts)
CLUSTER BY order_id
OPTIONS (partition_expiration_days = 365, require_partition_filter = TRUE, description = 'order lifecycle events')
;;
-- model: CREATE TABLE ... PARTITION BY ... CLUSTER BY ... AS SELECT (dbt table materialization)
-- reads: sales, staging
-- writes
CREATE OR REPLACE TABLE sales.fct_orders
PARTITION BY order_date
CLUSTER BY customer_id, region
OPTIONS (description = 'one row per order')
AS
SELECT o.order_id, o.customer_id, o.order_date, c.region, o.amount
FROM staging.stg_orders o
JOIN sales.customers c USING (customer_id)
;;
-- model: CTAS partitioned by month with TIMESTAMP_TRUNC
-- reads: analytics_123456
-- writes
CREATE OR REPLACE TABLE analytics_123456.sessions
PARTITION BY TIMESTAMP_TRUNC(session_start, MONTH)
CLUSTER BY user_pseudo_id
AS
SELECT user_pseudo_id,
  (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS session_id,
  TIMESTAMP_MICROS(MIN(event_timestamp)) AS session_start,
  COUNT(*) AS events
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY 1, 2
;;
-- model: CTAS with integer range partitioning
-- reads: sales
-- writes
CREATE TABLE sales.customers_by_bucket
PARTITION BY RANGE_BUCKET(customer_id, GENERATE_ARRAY(0, 1000000, 10000))
AS SELECT * FROM sales.customers
;;
-- model: CTAS with an expiration (scratch table)
-- reads: staging, sales
-- writes
CREATE OR REPLACE TABLE staging.tmp_orders
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY))
AS SELECT * FROM sales.orders WHERE order_date >= '2024-06-01'
;;
-- model: CTAS whose query is a pipe query
-- reads: mkt_eu
-- writes
CREATE OR REPLACE TABLE mkt_eu.campaign_daily AS
FROM mkt_eu.clicks
|> AGGREGATE COUNT(*) AS clicks GROUP BY campaign, DATE(click_ts) AS day
;;
-- model: CREATE TABLE with column defaults and a primary key (NOT ENFORCED)
-- reads: finance
-- writes
CREATE TABLE finance.invoices (
  invoice_id STRING NOT NULL,
  customer_id INT64,
  amount NUMERIC(12, 2),
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP(),
  PRIMARY KEY (invoice_id) NOT ENFORCED
)
;;
-- model: CREATE TABLE with a foreign key REFERENCES (table constraints docs)
-- reads: finance
-- writes
CREATE TABLE finance.payments (
  payment_id STRING NOT NULL,
  invoice_id STRING,
  amount NUMERIC,
  PRIMARY KEY (payment_id) NOT ENFORCED,
  FOREIGN KEY (invoice_id) REFERENCES finance.invoices (invoice_id) NOT ENFORCED
)
;;
-- model: CREATE TABLE ... LIKE (copy the schema)
-- reads: sales, staging
-- writes
CREATE TABLE staging.orders_empty LIKE sales.orders
;;
-- model: CREATE TABLE ... COPY
-- reads: sales
-- writes
CREATE TABLE sales.orders_backup_20240601 COPY sales.orders
;;
-- model: CREATE TABLE ... CLONE (table clones docs)
-- reads: sales, staging
-- writes
CREATE TABLE staging.orders_clone CLONE sales.orders
;;
-- model: CREATE SNAPSHOT TABLE ... CLONE with time travel and expiration (table snapshots docs)
-- reads: sales
-- writes
CREATE SNAPSHOT TABLE sales.orders_snapshot_20240601
CLONE sales.orders FOR SYSTEM_TIME AS OF TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 HOUR)
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 30 DAY))
;;
-- model: CREATE SNAPSHOT TABLE into another dataset
-- reads: sales, staging
-- writes
CREATE SNAPSHOT TABLE IF NOT EXISTS `p.staging.orders_snap` CLONE `p.sales.orders`
;;
-- model: CREATE TABLE ... CLONE of a snapshot (restore)
-- reads: sales
-- writes
CREATE OR REPLACE TABLE sales.orders_restored CLONE sales.orders_snapshot_20240601
;;
-- model: CREATE VIEW (dbt view materialization)
-- reads: sales
-- writes
CREATE OR REPLACE VIEW sales.v_active_customers AS
SELECT c.*, MAX(o.order_date) AS last_order
FROM sales.customers c JOIN sales.orders o USING (customer_id)
GROUP BY ALL
HAVING last_order >= DATE_SUB(CURRENT_DATE(), INTERVAL 90 DAY)
;;
-- model: CREATE VIEW with a column list and OPTIONS
-- reads: mkt_eu, analytics_123456
-- writes
CREATE VIEW IF NOT EXISTS mkt_eu.v_page_views (day, page, views)
OPTIONS (description = 'GA4 page views', labels = [('team', 'marketing')])
AS
SELECT PARSE_DATE('%Y%m%d', event_date),
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location'),
  COUNT(*)
FROM `p.analytics_123456.events_*`
WHERE event_name = 'page_view'
GROUP BY 1, 2
;;
-- model: CREATE VIEW across two datasets (authorized view definition)
-- reads: mkt_eu, sales
-- writes
CREATE OR REPLACE VIEW mkt_eu.v_customer_emails AS
SELECT customer_id, email, country FROM sales.customers WHERE marketing_opt_in
;;
-- model: CREATE MATERIALIZED VIEW (materialized views docs)
-- reads: sales
-- writes
CREATE MATERIALIZED VIEW sales.mv_daily_revenue
PARTITION BY order_date
CLUSTER BY region
OPTIONS (enable_refresh = TRUE, refresh_interval_minutes = 60)
AS
SELECT order_date, region, SUM(amount) AS revenue, COUNT(*) AS orders
FROM sales.orders
GROUP BY order_date, region
;;
-- model: CREATE MATERIALIZED VIEW with max_staleness
-- reads: analytics_123456
-- writes
CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_123456.mv_event_counts
OPTIONS (max_staleness = INTERVAL '4:0:0' HOUR TO SECOND, allow_non_incremental_definition = TRUE)
AS SELECT event_date, event_name, COUNT(*) AS n FROM analytics_123456.events_20240115 GROUP BY 1, 2
;;
-- model: CREATE TABLE FUNCTION (table functions docs)
-- reads: sales
-- writes
CREATE OR REPLACE TABLE FUNCTION sales.orders_between(start_date DATE, end_date DATE)
AS SELECT * FROM sales.orders WHERE order_date BETWEEN start_date AND end_date
;;
-- model: CREATE TABLE FUNCTION with RETURNS TABLE
-- reads: sales
-- writes
CREATE TABLE FUNCTION sales.top_customers(n INT64)
RETURNS TABLE<customer_id INT64, revenue NUMERIC>
AS (
  SELECT customer_id, SUM(amount) AS revenue FROM sales.orders GROUP BY customer_id ORDER BY revenue DESC LIMIT n
)
;;
-- model: CREATE FUNCTION, persistent SQL UDF
-- reads: sales
-- writes
CREATE OR REPLACE FUNCTION sales.normalize_email(email STRING)
RETURNS STRING
AS (LOWER(TRIM(REGEXP_REPLACE(email, r'\+[^@]*@', '@'))))
;;
-- model: CREATE FUNCTION, persistent JavaScript UDF with OPTIONS
-- reads: mkt_eu
-- writes
CREATE FUNCTION IF NOT EXISTS mkt_eu.parse_utm(url STRING)
RETURNS STRUCT<source STRING, medium STRING, campaign STRING>
LANGUAGE js
OPTIONS (description = 'UTM parameters of a URL')
AS r"""
  const u = new URL(url);
  return {source: u.searchParams.get('utm_source'), medium: u.searchParams.get('utm_medium'), campaign: u.searchParams.get('utm_campaign')};
"""
;;
-- model: CREATE FUNCTION whose body reads a table
-- reads: finance
-- writes
CREATE OR REPLACE FUNCTION finance.to_usd(amount NUMERIC, currency STRING, d DATE)
AS ((SELECT amount * rate_to_usd FROM finance.fx_rates WHERE fx_rates.currency = currency AND rate_date = d))
;;
-- model: CREATE AGGREGATE FUNCTION (persistent UDAF)
-- reads: sales
-- writes
CREATE AGGREGATE FUNCTION sales.weighted_avg(value FLOAT64, weight FLOAT64)
RETURNS FLOAT64
AS (SUM(value * weight) / SUM(weight))
;;
-- model: ALTER TABLE ADD COLUMN (docs)
-- reads: sales
-- writes
ALTER TABLE sales.orders ADD COLUMN IF NOT EXISTS discount_code STRING OPTIONS (description = 'promo code')
;;
-- model: ALTER TABLE ADD COLUMN of a nested STRUCT
-- reads: sales
-- writes
ALTER TABLE sales.customers
  ADD COLUMN preferences STRUCT<newsletter BOOL, language STRING>,
  ADD COLUMN loyalty_tier STRING
;;
-- model: ALTER TABLE SET OPTIONS
-- reads: staging
-- writes
ALTER TABLE staging.orders_raw SET OPTIONS (expiration_timestamp = TIMESTAMP '2025-01-01 00:00:00 UTC', description = 'raw landing')
;;
-- model: ALTER TABLE RENAME TO
-- reads: staging
-- writes
ALTER TABLE staging.orders_tmp RENAME TO orders_old
;;
-- model: ALTER TABLE ALTER COLUMN SET DATA TYPE / DROP NOT NULL
-- reads: sales
-- writes
ALTER TABLE sales.products ALTER COLUMN price SET DATA TYPE NUMERIC, ALTER COLUMN name DROP NOT NULL
;;
-- model: ALTER TABLE DROP COLUMN
-- reads: staging
-- writes
ALTER TABLE staging.customers_raw DROP COLUMN IF EXISTS internal_notes
;;
-- model: ALTER TABLE RENAME COLUMN
-- reads: sales
-- writes
ALTER TABLE sales.customers RENAME COLUMN cust_email TO email
;;
-- model: ALTER VIEW SET OPTIONS
-- reads: sales
-- writes
ALTER VIEW sales.v_active_customers SET OPTIONS (description = 'customers with an order in the last 90 days')
;;
-- model: ALTER MATERIALIZED VIEW SET OPTIONS
-- reads: sales
-- writes
ALTER MATERIALIZED VIEW sales.mv_daily_revenue SET OPTIONS (enable_refresh = FALSE)
;;
-- model: DROP TABLE
-- reads: staging
-- writes
DROP TABLE staging.tmp_orders
;;
-- model: DROP TABLE IF EXISTS project-qualified
-- reads: sales
-- writes
DROP TABLE IF EXISTS `p.sales.orders_backup_20240601`
;;
-- model: DROP VIEW
-- reads: sales
-- writes
DROP VIEW IF EXISTS sales.v_active_customers
;;
-- model: DROP MATERIALIZED VIEW
-- reads: analytics_123456
-- writes
DROP MATERIALIZED VIEW analytics_123456.mv_event_counts
;;
-- model: DROP FUNCTION
-- reads: mkt_eu
-- writes
DROP FUNCTION IF EXISTS mkt_eu.parse_utm
;;
-- model: DROP TABLE FUNCTION
-- reads: sales
-- writes
DROP TABLE FUNCTION sales.top_customers
;;
-- model: DROP SNAPSHOT TABLE
-- reads: sales
-- writes
DROP SNAPSHOT TABLE IF EXISTS sales.orders_snapshot_20240601
;;
-- model: CREATE SCHEMA with OPTIONS (datasets docs)
-- reads: sandbox_anna
-- writes
CREATE SCHEMA IF NOT EXISTS sandbox_anna
OPTIONS (location = 'EU', default_table_expiration_days = 7, description = 'personal sandbox')
;;
-- model: ALTER SCHEMA SET OPTIONS
-- reads: staging
-- writes
ALTER SCHEMA staging SET OPTIONS (default_table_expiration_days = 30)
;;
-- model: CREATE SEARCH INDEX (search indexes docs)
-- reads: staging
-- writes
CREATE SEARCH INDEX IF NOT EXISTS logs_index ON staging.app_logs (ALL COLUMNS)
;;
-- model: CREATE VECTOR INDEX (vector indexes docs)
-- reads: ml
-- writes
CREATE VECTOR INDEX IF NOT EXISTS doc_embeddings_idx ON ml.doc_embeddings (embedding)
OPTIONS (index_type = 'IVF', distance_type = 'COSINE', ivf_options = '{"num_lists": 500}')
;;
-- model: CREATE ROW ACCESS POLICY (row-level security docs)
-- reads: sales
-- writes
CREATE OR REPLACE ROW ACCESS POLICY emea_only ON sales.orders
GRANT TO ('group:emea-analysts@example.com')
FILTER USING (region = 'EMEA')
;;
-- model: DROP ROW ACCESS POLICY
-- reads: sales
-- writes
DROP ROW ACCESS POLICY IF EXISTS emea_only ON sales.orders
;;
-- model: GRANT on a dataset (docs: DCL)
-- reads: mkt_eu
-- writes
GRANT `roles/bigquery.dataViewer` ON SCHEMA mkt_eu TO 'group:marketing@example.com'
;;
-- model: CREATE MODEL logistic regression (churn tutorial)
-- reads: ml
-- writes
CREATE OR REPLACE MODEL ml.churn_model
OPTIONS (model_type = 'LOGISTIC_REG', input_label_cols = ['churned'], auto_class_weights = TRUE, data_split_method = 'AUTO_SPLIT')
AS
SELECT * EXCEPT (user_id, split) FROM ml.churn_features WHERE split = 'train'
;;
-- model: CREATE MODEL k-means (customer segmentation tutorial)
-- reads: ml, sales
-- writes
CREATE MODEL IF NOT EXISTS ml.customer_segments
OPTIONS (model_type = 'KMEANS', num_clusters = 5, standardize_features = TRUE)
AS
SELECT orders_90d, avg_amount, tenure_days FROM sales.customer_features
;;
-- model: CREATE MODEL ARIMA_PLUS (time series forecasting tutorial)
-- reads: ml, sales
-- writes
CREATE OR REPLACE MODEL `p.ml.daily_sales_arima`
OPTIONS (model_type = 'ARIMA_PLUS', time_series_timestamp_col = 'order_date', time_series_data_col = 'daily_revenue',
         auto_arima = TRUE, data_frequency = 'DAILY', holiday_region = 'US')
AS
SELECT order_date, daily_revenue FROM sales.daily_summary
;;
-- model: CREATE MODEL boosted tree with a TRANSFORM clause (feature engineering tutorial)
-- reads: ml
-- writes
CREATE OR REPLACE MODEL ml.ltv_boosted
TRANSFORM (
  ML.STANDARD_SCALER(orders_90d) OVER () AS orders_scaled,
  ML.QUANTILE_BUCKETIZE(avg_amount, 10) OVER () AS amount_bucket,
  ML.FEATURE_CROSS(STRUCT(country, device)) AS country_device,
  ltv
)
OPTIONS (model_type = 'BOOSTED_TREE_REGRESSOR', input_label_cols = ['ltv'], max_iterations = 50)
AS SELECT orders_90d, avg_amount, country, device, ltv FROM ml.ltv_training
;;
-- model: CREATE MODEL matrix factorization (recommendations tutorial)
-- reads: ml
-- writes
CREATE OR REPLACE MODEL ml.product_recs
OPTIONS (model_type = 'MATRIX_FACTORIZATION', feedback_type = 'IMPLICIT', user_col = 'user_id', item_col = 'sku', rating_col = 'rating', l2_reg = 30, num_factors = 15)
AS SELECT user_id, sku, rating FROM ml.ratings
;;
-- model: CREATE MODEL linear regression on a public dataset (penguins tutorial)
-- reads: ml, bigquery-public-data.ml_datasets
-- writes
CREATE OR REPLACE MODEL ml.penguins_model
OPTIONS (model_type = 'linear_reg', input_label_cols = ['body_mass_g'])
AS
SELECT * FROM `bigquery-public-data.ml_datasets.penguins` WHERE body_mass_g IS NOT NULL
;;
-- model: ALTER MODEL SET OPTIONS
-- reads: ml
-- writes
ALTER MODEL ml.churn_model SET OPTIONS (description = 'v3, retrained monthly')
;;
-- model: DROP MODEL
-- reads: ml
-- writes
DROP MODEL IF EXISTS ml.penguins_model
;;
-- model: CREATE PROCEDURE with a body of plain statements (procedures docs)
-- reads: sales
-- writes
CREATE OR REPLACE PROCEDURE sales.refresh_daily_summary()
BEGIN
  CREATE OR REPLACE TABLE sales.daily_summary AS
  SELECT order_date, COUNT(*) AS orders, SUM(amount) AS daily_revenue FROM sales.orders GROUP BY order_date;
END
;;
-- model: CREATE PROCEDURE with DECLARE and an argument
-- reads: sales
-- writes
CREATE PROCEDURE sales.purge_old_orders(days INT64)
BEGIN
  DECLARE cutoff DATE DEFAULT DATE_SUB(CURRENT_DATE(), INTERVAL days DAY);
  DELETE FROM sales.orders_archive WHERE order_date < cutoff;
END
;;
-- model: CREATE PROCEDURE with an OUT argument, SET and two statements
-- reads: staging
-- writes
CREATE OR REPLACE PROCEDURE staging.load_orders(OUT loaded INT64)
BEGIN
  SET loaded = (SELECT COUNT(*) FROM staging.orders_raw);
  INSERT INTO staging.stg_orders SELECT * FROM staging.orders_raw;
  TRUNCATE TABLE staging.orders_raw;
END
;;
-- model: CREATE PROCEDURE wrapping a MERGE across datasets
-- reads: sales, staging
-- writes
CREATE PROCEDURE IF NOT EXISTS sales.sync_customers()
OPTIONS (description = 'nightly customer sync')
BEGIN
  MERGE sales.customers T
  USING staging.customer_updates S
  ON T.customer_id = S.customer_id
  WHEN MATCHED THEN UPDATE SET email = S.email
  WHEN NOT MATCHED THEN INSERT (customer_id, email) VALUES (S.customer_id, S.email);
END
;;
-- model: DROP PROCEDURE
-- reads: sales
-- writes
DROP PROCEDURE IF EXISTS sales.purge_old_orders
;;
-- model: script with DECLARE and a query (scripting docs)
-- reads: sales
-- writes
-- refused: script
DECLARE start_date DATE DEFAULT DATE_SUB(CURRENT_DATE(), INTERVAL 7 DAY);
SELECT region, SUM(amount) AS revenue FROM sales.orders WHERE order_date >= start_date GROUP BY region;
;;
-- model: script with DECLARE, SET from a query, IF (scripting docs)
-- reads: sales
-- writes
-- refused: script
DECLARE n INT64;
SET n = (SELECT COUNT(*) FROM sales.orders WHERE order_date = CURRENT_DATE());
IF n = 0 THEN
  SELECT 'no orders today' AS warning;
ELSE
  SELECT n AS orders_today;
END IF;
;;
-- model: WHILE loop backfill script
-- reads: sales
-- writes
-- refused: script
DECLARE d DATE DEFAULT '2024-01-01';
WHILE d <= '2024-01-31' DO
  INSERT INTO sales.daily_summary (order_date, orders, daily_revenue)
  SELECT order_date, COUNT(*), SUM(amount) FROM sales.orders WHERE order_date = d GROUP BY order_date;
  SET d = DATE_ADD(d, INTERVAL 1 DAY);
END WHILE;
;;
-- model: FOR ... IN loop over a query (scripting docs: FOR...IN)
-- reads: staging
-- writes
-- refused: script
FOR t IN (SELECT table_name FROM staging.INFORMATION_SCHEMA.TABLES WHERE table_name LIKE 'tmp_%')
DO
  SELECT t.table_name;
END FOR;
;;
-- model: multi-statement transaction (docs: multi-statement transactions)
-- reads: sales, staging
-- writes
-- refused: script
BEGIN TRANSACTION;
DELETE FROM sales.daily_summary WHERE order_date = CURRENT_DATE();
INSERT INTO sales.daily_summary SELECT order_date, COUNT(*), SUM(amount) FROM staging.stg_orders WHERE order_date = CURRENT_DATE() GROUP BY order_date;
COMMIT TRANSACTION;
;;
-- model: two queries in one call
-- reads: sales
-- refused: script
SELECT COUNT(*) FROM sales.orders;
SELECT COUNT(*) FROM sales.customers;
;;
-- model: temp table then a query over it (script with CREATE TEMP TABLE)
-- reads: sales
-- writes
-- refused: script
CREATE TEMP TABLE big_orders AS SELECT * FROM sales.orders WHERE amount > 1000;
SELECT region, COUNT(*) FROM big_orders GROUP BY region;
;;
-- model: temporary function followed by two queries is a script
-- reads: sales
-- refused: script
CREATE TEMP FUNCTION double_it(x INT64) AS (x * 2);
SELECT double_it(qty) FROM sales.order_items;
SELECT double_it(orders) FROM sales.daily_summary;
;;
-- model: BEGIN ... EXCEPTION block (scripting docs: error handling)
-- reads: sales
-- writes
-- refused: script
BEGIN
  SELECT SUM(amount) / 0 FROM sales.orders;
EXCEPTION WHEN ERROR THEN
  SELECT @@error.message, @@error.statement_text;
END;
;;
-- model: LOOP with BREAK
-- reads: staging
-- writes
-- refused: script
DECLARE i INT64 DEFAULT 0;
LOOP
  SET i = i + 1;
  IF i > 10 THEN LEAVE; END IF;
  DELETE FROM staging.tmp_orders WHERE MOD(order_id, 10) = i - 1;
END LOOP;
;;
-- model: system variables to set the default dataset, then a query
-- reads: sales
-- writes
-- refused: script
SET @@dataset_project_id = 'p';
SET @@dataset_id = 'sales';
SELECT COUNT(*) FROM orders;
;;
-- model: REPEAT ... UNTIL loop
-- reads: sales
-- writes
-- refused: script
DECLARE x INT64 DEFAULT 0;
REPEAT
  SET x = x + 1;
UNTIL x >= (SELECT COUNT(*) FROM sales.regions)
END REPEAT;
;;
-- model: a single DECLARE with a query default and a query after it
-- reads: analytics_123456
-- refused: script
DECLARE yesterday STRING DEFAULT FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY));
SELECT COUNT(*) FROM `analytics_123456.events_*` WHERE _TABLE_SUFFIX = yesterday;
;;
-- model: CALL a procedure (procedures docs)
-- reads: sales
-- writes
-- refused: call
CALL sales.refresh_daily_summary()
;;
-- model: CALL with an argument
-- reads: sales
-- writes
-- refused: call
CALL sales.purge_old_orders(365)
;;
-- model: CALL of the system procedure BQ.REFRESH_MATERIALIZED_VIEW (materialized views docs)
-- reads: sales
-- writes
-- refused: call
CALL BQ.REFRESH_MATERIALIZED_VIEW('p.sales.mv_daily_revenue')
;;
-- model: CALL a project-qualified procedure in backticks
-- reads: staging
-- refused: call
CALL `p.staging.rebuild_stg_orders`()
;;
-- model: EXECUTE IMMEDIATE of a query string (dynamic SQL docs)
-- reads: sales
-- refused: execute-immediate
EXECUTE IMMEDIATE "SELECT COUNT(*) FROM sales.orders"
;;
-- model: EXECUTE IMMEDIATE FORMAT to create a dated table
-- reads: staging, sales
-- writes
-- refused: execute-immediate
EXECUTE IMMEDIATE FORMAT("CREATE OR REPLACE TABLE staging.orders_%s AS SELECT * FROM sales.orders", FORMAT_DATE('%Y%m%d', CURRENT_DATE()))
;;
-- model: EXECUTE IMMEDIATE with USING parameters
-- reads: sales
-- writes
-- refused: execute-immediate
EXECUTE IMMEDIATE 'SELECT * FROM sales.orders WHERE status = ?' USING 'shipped'
;;
-- model: GRAPH_TABLE from-item (BigQuery graph docs)
-- reads: sales
-- graph: sales.customer_graph = sales.customers, sales.products, sales.orders
SELECT *
FROM GRAPH_TABLE(
  sales.customer_graph
  MATCH (c:Customer)-[o:Ordered]->(pr:Product)
  COLUMNS (c.customer_id, pr.sku, o.amount)
)
;;
-- model: GRAPH query in GQL (graph query language docs)
-- reads: sales
-- graph: sales.customer_graph = sales.customers, sales.products, sales.orders
GRAPH sales.customer_graph
MATCH (c:Customer)-[:Ordered]->(pr:Product)
RETURN pr.sku AS sku, COUNT(c) AS buyers
GROUP BY sku
ORDER BY buyers DESC
LIMIT 10
;;
-- model: GRAPH_TABLE in a pipe query
-- reads: sales
-- graph: sales.customer_graph = sales.customers, sales.products, sales.orders
FROM GRAPH_TABLE(sales.customer_graph MATCH (a:Customer)-[:Referred]->(b:Customer) COLUMNS (a.customer_id AS referrer, b.customer_id AS referred))
|> AGGREGATE COUNT(*) AS referrals GROUP BY referrer
;;
-- model: CREATE PROPERTY GRAPH (graph schema docs)
-- reads: sales
-- writes
CREATE OR REPLACE PROPERTY GRAPH sales.customer_graph
  NODE TABLES (
    sales.customers KEY (customer_id) LABEL Customer,
    sales.products KEY (sku) LABEL Product
  )
  EDGE TABLES (
    sales.orders KEY (order_id)
      SOURCE KEY (customer_id) REFERENCES customers (customer_id)
      DESTINATION KEY (sku) REFERENCES products (sku)
      LABEL Ordered
  )
;;
-- model: DROP PROPERTY GRAPH
-- reads: sales
-- writes
DROP PROPERTY GRAPH IF EXISTS sales.customer_graph
;;
-- model: EXTERNAL_QUERY to Cloud SQL (federated queries docs)
-- reads:
-- refused: connection
SELECT * FROM EXTERNAL_QUERY('p.us.crm_postgres', 'SELECT id, email, created_at FROM customers;')
;;
-- model: EXTERNAL_QUERY joined with a BigQuery table
-- reads: sales
-- refused: connection
SELECT o.order_id, c.email
FROM sales.orders o
JOIN EXTERNAL_QUERY("p.eu.crm_mysql", "SELECT customer_id, email FROM contacts") AS c USING (customer_id)
;;
-- model: CREATE EXTERNAL TABLE WITH CONNECTION (BigLake tables docs)
-- reads: staging
-- writes
-- refused: connection
CREATE OR REPLACE EXTERNAL TABLE staging.orders_lake
WITH CONNECTION `p.us.gcs_lake`
OPTIONS (format = 'PARQUET', uris = ['gs://acme-lake/orders/*.parquet'])
;;
-- model: CREATE EXTERNAL TABLE over CSV files without a connection (external tables docs)
-- reads: staging
-- writes
-- refused: connection
CREATE EXTERNAL TABLE staging.orders_csv
OPTIONS (format = 'CSV', uris = ['gs://acme-landing/orders/*.csv'], skip_leading_rows = 1)
;;
-- model: object table over images (object tables docs)
-- reads: staging
-- writes
-- refused: connection
CREATE EXTERNAL TABLE staging.product_images
WITH CONNECTION `us.gcs_objects`
OPTIONS (object_metadata = 'SIMPLE', uris = ['gs://acme-images/products/*'])
;;
-- model: remote model over a Vertex AI endpoint (remote models docs)
-- reads: ml
-- writes
-- refused: connection
CREATE OR REPLACE MODEL ml.gemini
REMOTE WITH CONNECTION `p.us.vertex_ai`
OPTIONS (endpoint = 'gemini-2.0-flash')
;;
-- model: remote function backed by Cloud Run (remote functions docs)
-- reads: mkt_eu
-- writes
-- refused: connection
CREATE FUNCTION mkt_eu.geocode(address STRING)
RETURNS STRING
REMOTE WITH CONNECTION `p.eu.cloud_run`
OPTIONS (endpoint = 'https://geocode-abc123-ew.a.run.app')
;;
-- model: OBJ.MAKE_REF with a connection (ObjectRef docs)
-- reads: staging
-- refused: connection
SELECT uri, OBJ.MAKE_REF(uri, 'us.gcs_objects') AS ref
FROM staging.image_uris
;;
-- model: AI.GENERATE with connection_id (generative AI functions docs)
-- reads: mkt_eu
-- refused: connection
SELECT review_id,
  AI.GENERATE(('Summarize this review in five words: ', review_text), connection_id => 'us.vertex_ai', endpoint => 'gemini-2.0-flash').result AS summary
FROM mkt_eu.reviews
LIMIT 100
;;
-- model: AI.GENERATE_BOOL with connection_id in WHERE
-- reads: mkt_eu
-- refused: connection
SELECT email_id, subject
FROM mkt_eu.emails
WHERE AI.GENERATE_BOOL(('Is this email a complaint? ', body), connection_id => 'p.us.vertex_ai').result
;;
-- model: OBJ.FETCH_METADATA of OBJ.MAKE_REF (ObjectRef docs)
-- reads:
-- refused: connection
SELECT OBJ.FETCH_METADATA(OBJ.MAKE_REF('gs://acme-images/products/1.jpg', 'us.gcs_objects')) AS meta
;;
-- model: LOAD DATA WITH CONNECTION from another cloud (BigQuery Omni docs)
-- reads: staging
-- writes
-- refused: connection
LOAD DATA INTO staging.s3_orders
FROM FILES (format = 'PARQUET', uris = ['s3://acme-orders/2024/*.parquet'])
WITH CONNECTION `aws-us-east-1.s3_conn`
;;
-- model: jobs cost report from region-level INFORMATION_SCHEMA.JOBS_BY_PROJECT (cost monitoring blog posts)
-- reads:
-- refused: region-information-schema
SELECT user_email, COUNT(*) AS jobs, SUM(total_bytes_billed) / POW(1024, 4) AS tib_billed
FROM `region-us`.INFORMATION_SCHEMA.JOBS_BY_PROJECT
WHERE creation_time > TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 30 DAY) AND job_type = 'QUERY'
GROUP BY user_email
ORDER BY tib_billed DESC
;;
-- model: storage per dataset from region-level TABLE_STORAGE
-- reads:
-- refused: region-information-schema
SELECT table_schema, SUM(total_logical_bytes) / POW(1024, 3) AS logical_gb
FROM `region-eu`.INFORMATION_SCHEMA.TABLE_STORAGE
GROUP BY table_schema
ORDER BY logical_gb DESC
;;
-- model: project-qualified region-level SCHEMATA
-- reads:
-- refused: region-information-schema
SELECT schema_name, location FROM `p.region-us.INFORMATION_SCHEMA.SCHEMATA`
;;
-- model: project-level INFORMATION_SCHEMA.SCHEMATA with no dataset
-- reads:
-- refused: region-information-schema
SELECT schema_name FROM INFORMATION_SCHEMA.SCHEMATA
;;
-- model: region-level TABLES filtered to a listed dataset (still every dataset's metadata)
-- reads: sales
-- refused: region-information-schema
SELECT t.table_name, COUNT(o.order_id) AS orders
FROM `region-us`.INFORMATION_SCHEMA.TABLES t
LEFT JOIN sales.orders o ON t.table_name = 'orders'
WHERE t.table_schema = 'sales'
GROUP BY 1
;;
-- model: region-level JOBS in pipe syntax, unquoted region qualifier
-- reads:
-- refused: region-information-schema
FROM region-us.INFORMATION_SCHEMA.JOBS
|> WHERE creation_time > TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)
|> AGGREGATE SUM(total_slot_ms) AS slot_ms GROUP BY user_email
;;
-- model: EXPORT DATA below the server's --export-gcs prefix (EXPORT DATA docs)
-- reads: sales
-- writes
EXPORT DATA OPTIONS (uri = 'gs://acme-exports/mcp/orders/*.csv', format = 'CSV', overwrite = TRUE, header = TRUE)
AS SELECT order_id, amount FROM sales.orders WHERE order_date = CURRENT_DATE()
;;
-- model: pipe EXPORT DATA below the --export-gcs prefix
-- reads: sales
-- writes
-- plan: EXPORT_DATA p.sales.orders
FROM sales.orders
|> WHERE region = 'EMEA'
|> EXPORT DATA OPTIONS (uri = 'gs://acme-exports/mcp/emea/*.json', format = 'JSON')
;;
-- model: EXPORT DATA to Cloud Storage as CSV (EXPORT DATA docs)
-- reads: sales
-- writes
-- refused: export-data
EXPORT DATA OPTIONS (uri = 'gs://acme-exports/orders/*.csv', format = 'CSV', overwrite = TRUE, header = TRUE, field_delimiter = ';')
AS SELECT * FROM sales.orders WHERE order_date = CURRENT_DATE()
;;
-- model: EXPORT DATA of GA4 events as Parquet
-- reads: analytics_123456
-- writes
-- refused: export-data
EXPORT DATA OPTIONS (uri = 'gs://acme-exports/ga4/events-*.parquet', format = 'PARQUET', compression = 'SNAPPY')
AS SELECT event_date, event_name, user_pseudo_id FROM `analytics_123456.events_*` WHERE _TABLE_SUFFIX = '20240115'
;;
-- model: pipe EXPORT DATA
-- reads: sales
-- writes
-- refused: export-data
-- plan: EXPORT_DATA p.sales.orders
FROM sales.orders
|> WHERE region = 'EMEA'
|> EXPORT DATA OPTIONS (uri = 'gs://partner-drop/emea/*.json', format = 'JSON', overwrite = TRUE)
;;
-- model: procedure with a WHILE loop (procedures docs: backfill procedure)
-- reads: sales
-- writes
-- refused: procedure-scripting
CREATE OR REPLACE PROCEDURE sales.backfill_daily(start_date DATE, end_date DATE)
BEGIN
  DECLARE d DATE DEFAULT start_date;
  WHILE d <= end_date DO
    DELETE FROM sales.daily_summary WHERE order_date = d;
    INSERT INTO sales.daily_summary SELECT order_date, COUNT(*), SUM(amount) FROM sales.orders WHERE order_date = d GROUP BY order_date;
    SET d = DATE_ADD(d, INTERVAL 1 DAY);
  END WHILE;
END
;;
-- model: procedure with IF around a MERGE
-- reads: staging, sales
-- writes
-- refused: procedure-scripting
CREATE PROCEDURE staging.upsert_if_new()
BEGIN
  IF (SELECT COUNT(*) FROM staging.customer_updates) > 0 THEN
    MERGE sales.customers T USING staging.customer_updates S ON T.customer_id = S.customer_id
    WHEN MATCHED THEN UPDATE SET email = S.email
    WHEN NOT MATCHED THEN INSERT (customer_id, email) VALUES (S.customer_id, S.email);
  END IF;
END
;;
-- model: procedure with a BEGIN ... EXCEPTION block
-- reads: staging
-- writes
-- refused: procedure-scripting
CREATE OR REPLACE PROCEDURE staging.safe_load()
BEGIN
  BEGIN
    INSERT INTO staging.stg_orders SELECT * FROM staging.orders_raw;
  EXCEPTION WHEN ERROR THEN
    INSERT INTO staging.load_errors (at, message) VALUES (CURRENT_TIMESTAMP(), @@error.message);
  END;
END
;;
-- model: procedure with a FOR ... IN loop over tables
-- reads: staging
-- writes
-- refused: procedure-scripting
CREATE PROCEDURE staging.drop_tmp_tables()
BEGIN
  FOR t IN (SELECT table_name FROM staging.INFORMATION_SCHEMA.TABLES WHERE table_name LIKE 'tmp_%') DO
    EXECUTE IMMEDIATE FORMAT('DROP TABLE staging.%s', t.table_name);
  END FOR;
END
;;
-- ===== Issue 35 (scopes): GA4 export idioms. Correlated subqueries of the
-- select list name the FROM's range variable before the FROM declares it;
-- UNNEST(event_params), the implicit UNNEST e.event_params, events_* with
-- _TABLE_SUFFIX, intraday tables. Kept in one block for easy merges. =====
-- model: GA4 export reference, ga_session_id with UNNEST in a scalar subquery
-- reads: analytics_123456
SELECT
  user_pseudo_id,
  (SELECT value.int_value FROM UNNEST(e.event_params) WHERE key = 'ga_session_id') AS session_id
FROM `p.analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
;;
-- model: GA4 session id through the implicit UNNEST of the range variable
-- reads: analytics_123456
SELECT
  (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS session_id,
  COUNT(*) AS events
FROM `p.analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
GROUP BY session_id
;;
-- model: GA4 sessions: user and session key from two correlated subqueries
-- reads: analytics_123456
SELECT
  CONCAT(user_pseudo_id, CAST((SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS STRING)) AS session_key,
  MIN(TIMESTAMP_MICROS(event_timestamp)) AS session_start,
  COUNTIF(event_name = 'page_view') AS page_views
FROM `p.analytics_123456.events_*` e
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
GROUP BY session_key
;;
-- model: GA4 landing pages with QUALIFY over a correlated subquery
-- reads: analytics_123456
SELECT
  user_pseudo_id,
  (SELECT value.string_value FROM e.event_params WHERE key = 'page_location') AS landing_page
FROM analytics_123456.events_20240115 AS e
WHERE event_name = 'page_view'
QUALIFY ROW_NUMBER() OVER (
  PARTITION BY user_pseudo_id, (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id')
  ORDER BY event_timestamp) = 1
;;
-- model: GA4 engaged sessions with COALESCE over int and string values
-- reads: analytics_123456
SELECT
  COUNT(DISTINCT CONCAT(user_pseudo_id, CAST((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS STRING))) AS sessions,
  COUNT(DISTINCT IF(
    COALESCE((SELECT value.string_value FROM e.event_params WHERE key = 'session_engaged'),
             CAST((SELECT value.int_value FROM e.event_params WHERE key = 'session_engaged') AS STRING)) = '1',
    CONCAT(user_pseudo_id, CAST((SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS STRING)), NULL)) AS engaged_sessions
FROM `p.analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
;;
-- model: GA4 user properties as an array of structs from the implicit alias
-- reads: analytics_123456
SELECT
  user_pseudo_id,
  ARRAY(SELECT AS STRUCT key, value.string_value FROM events_20240115.user_properties) AS props
FROM analytics_123456.events_20240115
;;
-- model: GA4 ecommerce items: purchase revenue per item from a correlated subquery
-- reads: analytics_123456
SELECT
  event_date,
  (SELECT SUM(i.price * i.quantity) FROM e.items AS i) AS basket_value,
  (SELECT STRING_AGG(i.item_name, ', ' ORDER BY i.item_name) FROM e.items AS i) AS item_names
FROM `p.analytics_123456.events_*` AS e
WHERE event_name = 'purchase' AND _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
;;
-- model: GA4 traffic source of the first event, EXISTS on event_params
-- reads: analytics_123456
SELECT traffic_source.source, traffic_source.medium, COUNT(DISTINCT user_pseudo_id) AS users
FROM `p.analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  AND EXISTS (SELECT 1 FROM e.event_params WHERE key = 'entrances' AND value.int_value = 1)
GROUP BY 1, 2
ORDER BY users DESC
;;
-- model: GA4 daily and intraday tables together
-- reads: analytics_123456
SELECT
  event_name,
  (SELECT value.string_value FROM e.event_params WHERE key = 'page_title') AS page_title
FROM `p.analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', CURRENT_DATE())
   OR _TABLE_SUFFIX = CONCAT('intraday_', FORMAT_DATE('%Y%m%d', CURRENT_DATE()))
;;
-- model: GA4 sessions in a CTE, with ORDER BY on a correlated subquery
-- reads: analytics_123456
WITH sessions AS (
  SELECT
    user_pseudo_id,
    (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS session_id,
    MAX((SELECT value.int_value FROM e.event_params WHERE key = 'engagement_time_msec')) AS engagement_msec
  FROM `p.analytics_123456.events_*` AS e
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
  GROUP BY 1, 2
)
SELECT * FROM sessions
ORDER BY engagement_msec DESC
LIMIT 100
;;
-- model: GA4 SELECT * EXCEPT with the page location pulled out (dbt GA4 staging model)
-- reads: analytics_123456
SELECT
  * EXCEPT (event_params, user_properties),
  (SELECT value.string_value FROM e.event_params WHERE key = 'page_location') AS page_location,
  (SELECT value.string_value FROM e.event_params WHERE key = 'page_referrer') AS page_referrer
FROM `p.analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX >= '20240101'
;;
-- model: GA4 funnel in pipe syntax with a correlated subquery after the FROM
-- reads: analytics_123456
FROM `p.analytics_123456.events_*` AS e
|> WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
|> EXTEND (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS session_id
|> AGGREGATE COUNTIF(event_name = 'add_to_cart') AS carts, COUNTIF(event_name = 'purchase') AS purchases GROUP BY session_id
;;
-- model: GA4 view over the export, as dbt materializes staging models
-- reads: analytics_123456, staging
-- writes
CREATE OR REPLACE VIEW staging.ga4_page_views AS
SELECT
  PARSE_DATE('%Y%m%d', event_date) AS event_date,
  user_pseudo_id,
  (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS session_id,
  (SELECT value.string_value FROM e.event_params WHERE key = 'page_location') AS page_location
FROM `p.analytics_123456.events_*` AS e
WHERE event_name = 'page_view'
;;
-- model: GA4 incremental MERGE of sessions (dbt incremental model, compiled)
-- reads: analytics_123456, staging
-- writes
MERGE staging.ga4_sessions AS T
USING (
  SELECT
    user_pseudo_id,
    (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS session_id,
    MIN(event_timestamp) AS started_at
  FROM `p.analytics_123456.events_*` AS e
  WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
  GROUP BY 1, 2
) AS S
ON T.user_pseudo_id = S.user_pseudo_id AND T.session_id = S.session_id
WHEN NOT MATCHED THEN INSERT (user_pseudo_id, session_id, started_at) VALUES (S.user_pseudo_id, S.session_id, S.started_at)
;;
-- model: BigQuery range functions reference, RANGE_SESSIONIZE over a table of ranges (issue 35)
-- reads: sales
SELECT emp_id, dept_id, duration, session_range
FROM RANGE_SESSIONIZE(TABLE sales.employee_shifts, 'duration', ['emp_id', 'dept_id'])
ORDER BY emp_id, duration
;;
-- model: AI.SEARCH reference, semantic search on a table with autonomous embeddings (issue 35)
-- reads: sales
SELECT base.product_name, distance
FROM AI.SEARCH(TABLE sales.products, 'product_description', 'a really fun toy', top_k => 5)
;;
-- model: pipe syntax reference, |> CALL of a BigQuery ML table function (issue 35)
-- reads: sales, ml
FROM sales.customers
|> WHERE country = 'DE'
|> CALL ML.PREDICT(MODEL ml.churn_model)
|> SELECT customer_id, predicted_churned
;;
-- model: vector index statistics (issue 35)
-- reads: sales
SELECT * FROM VECTOR_INDEX.STATISTICS(TABLE sales.product_embeddings)
;;
-- model: SCHEMATA reference, the datasets of the default project, under an allowlist of the whole project (issue 35)
-- reads: p.*
SELECT schema_name, location, creation_time
FROM INFORMATION_SCHEMA.SCHEMATA
ORDER BY schema_name
;;
-- model: SCHEMATA_OPTIONS of the project named (issue 35)
-- reads: p.*
SELECT schema_name, option_name, option_value
FROM `p`.INFORMATION_SCHEMA.SCHEMATA_OPTIONS
WHERE option_name = 'default_table_expiration_days'
;;
-- ===== Issue 35 (corpus): more GA4 export idioms, modelled on the public
-- GA4 BigQuery query collections (ga4bigquery.com style recipes, the GA4
-- export schema reference, Google's GA4 sample ecommerce queries). =====
-- model: GA4 every event parameter key with its value types, over a month of daily tables
-- reads: analytics_123456
SELECT
  ep.key,
  COUNT(*) AS occurrences,
  COUNTIF(ep.value.string_value IS NOT NULL) AS string_values,
  COUNTIF(ep.value.int_value IS NOT NULL) AS int_values,
  COUNTIF(ep.value.double_value IS NOT NULL OR ep.value.float_value IS NOT NULL) AS float_values
FROM `analytics_123456.events_*`, UNNEST(event_params) AS ep
WHERE _TABLE_SUFFIX BETWEEN '20240201' AND '20240229'
GROUP BY ep.key
ORDER BY occurrences DESC
;;
-- model: GA4 a parameter's value whatever its type (COALESCE over the four value fields)
-- reads: analytics_123456
SELECT
  event_name,
  (SELECT COALESCE(value.string_value, CAST(value.int_value AS STRING), CAST(value.double_value AS STRING), CAST(value.float_value AS STRING))
   FROM UNNEST(event_params) WHERE key = 'value') AS event_value
FROM `p.analytics_123456.events_20240215`
WHERE event_name IN ('purchase', 'generate_lead')
;;
-- model: GA4 session source and medium of the session's first event (ARRAY_AGG ... LIMIT 1)
-- reads: analytics_123456
WITH events AS (
  SELECT
    user_pseudo_id,
    (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS session_id,
    (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'source') AS source,
    (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'medium') AS medium,
    event_timestamp
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 28 DAY))
                          AND FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
)
SELECT
  user_pseudo_id,
  session_id,
  ARRAY_AGG(STRUCT(source, medium) IGNORE NULLS ORDER BY event_timestamp LIMIT 1)[SAFE_OFFSET(0)] AS first_touch
FROM events
GROUP BY user_pseudo_id, session_id
;;
-- model: GA4 closed funnel per user with the time of each step (MIN IF)
-- reads: analytics_123456
WITH steps AS (
  SELECT
    user_pseudo_id,
    MIN(IF(event_name = 'view_item', event_timestamp, NULL)) AS viewed_at,
    MIN(IF(event_name = 'add_to_cart', event_timestamp, NULL)) AS carted_at,
    MIN(IF(event_name = 'begin_checkout', event_timestamp, NULL)) AS checkout_at,
    MIN(IF(event_name = 'purchase', event_timestamp, NULL)) AS purchased_at
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  GROUP BY user_pseudo_id
)
SELECT
  COUNTIF(viewed_at IS NOT NULL) AS step1_view,
  COUNTIF(carted_at > viewed_at) AS step2_cart,
  COUNTIF(checkout_at > carted_at AND carted_at > viewed_at) AS step3_checkout,
  COUNTIF(purchased_at > checkout_at AND checkout_at > carted_at AND carted_at > viewed_at) AS step4_purchase
FROM steps
;;
-- model: GA4 last non-direct click attribution with LAST_VALUE IGNORE NULLS
-- reads: analytics_123456
WITH touches AS (
  SELECT
    user_pseudo_id,
    event_timestamp,
    event_name,
    NULLIF(collected_traffic_source.manual_source, '(direct)') AS source,
    collected_traffic_source.manual_medium AS medium,
    ecommerce.purchase_revenue AS revenue
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
)
SELECT
  COALESCE(LAST_VALUE(source IGNORE NULLS) OVER (PARTITION BY user_pseudo_id ORDER BY event_timestamp
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), '(direct)') AS attributed_source,
  SUM(revenue) OVER (PARTITION BY user_pseudo_id) AS user_revenue,
  event_name
FROM touches
QUALIFY event_name = 'purchase'
;;
-- model: GA4 items with item-scoped revenue and coupon (UNNEST(items) AS item)
-- reads: analytics_123456
SELECT
  item.item_id,
  item.item_name,
  item.item_category,
  item.coupon,
  SUM(item.quantity) AS units,
  SUM(item.item_revenue) AS item_revenue
FROM `p.analytics_123456.events_*`, UNNEST(items) AS item
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240331'
  AND event_name = 'purchase'
GROUP BY 1, 2, 3, 4
HAVING units > 0
ORDER BY item_revenue DESC
;;
-- model: GA4 today's intraday events by name (events_intraday_* with _TABLE_SUFFIX)
-- reads: analytics_123456
SELECT event_name, COUNT(*) AS events, COUNT(DISTINCT user_pseudo_id) AS users
FROM `analytics_123456.events_intraday_*`
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', CURRENT_DATE('Europe/Berlin'))
GROUP BY event_name
ORDER BY events DESC
;;
-- model: GA4 user property from a scalar subquery of user_properties
-- reads: analytics_123456
SELECT
  (SELECT value.string_value FROM UNNEST(user_properties) WHERE key = 'membership_level') AS membership,
  COUNT(DISTINCT user_pseudo_id) AS users,
  SUM(ecommerce.purchase_revenue) AS revenue
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY membership
;;
-- model: GA4 purchases de-duplicated by transaction_id
-- reads: analytics_123456
SELECT
  ecommerce.transaction_id,
  ANY_VALUE(ecommerce.purchase_revenue_in_usd) AS revenue_usd,
  MIN(TIMESTAMP_MICROS(event_timestamp)) AS purchased_at
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  AND event_name = 'purchase'
  AND ecommerce.transaction_id IS NOT NULL
  AND ecommerce.transaction_id != '(not set)'
GROUP BY 1
;;
-- model: GA4 page path without query string from page_location (REGEXP_EXTRACT)
-- reads: analytics_123456
SELECT
  REGEXP_EXTRACT((SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location'), r'^https?://[^/]+([^?#]*)') AS page_path,
  COUNT(*) AS page_views,
  COUNT(DISTINCT user_pseudo_id) AS users
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107' AND event_name = 'page_view'
GROUP BY page_path
ORDER BY page_views DESC
LIMIT 50
;;
-- model: GA4 exit pages (LAST_VALUE of page_location per session)
-- reads: analytics_123456
WITH pv AS (
  SELECT
    user_pseudo_id,
    (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS session_id,
    (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location') AS page,
    event_timestamp
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107' AND event_name = 'page_view'
)
SELECT exit_page, COUNT(*) AS exits
FROM (
  SELECT DISTINCT user_pseudo_id, session_id,
    LAST_VALUE(page) OVER (PARTITION BY user_pseudo_id, session_id ORDER BY event_timestamp
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS exit_page
  FROM pv
)
GROUP BY exit_page
ORDER BY exits DESC
;;
-- model: GA4 time on page from the next page_view's timestamp (LEAD)
-- reads: analytics_123456
SELECT
  page,
  AVG(TIMESTAMP_DIFF(next_ts, ts, SECOND)) AS avg_seconds_on_page
FROM (
  SELECT
    (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location') AS page,
    TIMESTAMP_MICROS(event_timestamp) AS ts,
    LEAD(TIMESTAMP_MICROS(event_timestamp)) OVER (
      PARTITION BY user_pseudo_id, (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id')
      ORDER BY event_timestamp) AS next_ts
  FROM `analytics_123456.events_20240115`
  WHERE event_name = 'page_view'
)
WHERE next_ts IS NOT NULL
GROUP BY page
;;
-- model: GA4 cart abandoners: users who added to cart and never purchased (EXCEPT DISTINCT)
-- reads: analytics_123456
SELECT user_pseudo_id FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131' AND event_name = 'add_to_cart'
EXCEPT DISTINCT
SELECT user_pseudo_id FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131' AND event_name = 'purchase'
;;
-- model: GA4 device, browser and country of sessions (device and geo records)
-- reads: analytics_123456
SELECT
  device.category,
  device.web_info.browser,
  device.operating_system,
  geo.country,
  geo.city,
  COUNT(DISTINCT CONCAT(user_pseudo_id, CAST((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS STRING))) AS sessions
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY ALL
;;
-- model: GA4 maximum scroll per session from a subquery over an inner subquery of the event's params
-- reads: analytics_123456
SELECT
  user_pseudo_id,
  (SELECT MAX(pct) FROM (SELECT value.int_value AS pct FROM UNNEST(e.event_params) WHERE key = 'percent_scrolled')) AS max_scroll
FROM `analytics_123456.events_20240115` AS e
WHERE event_name = 'scroll'
;;
-- model: GA4 consent and privacy_info breakdown
-- reads: analytics_123456
SELECT
  privacy_info.analytics_storage,
  privacy_info.ads_storage,
  COUNT(*) AS events,
  COUNTIF(user_id IS NOT NULL) AS with_user_id
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
GROUP BY 1, 2
;;
-- model: GA4 sessions table joined to Google Ads cost by campaign (ROAS)
-- reads: analytics_123456, mkt_eu
WITH sessions AS (
  SELECT
    PARSE_DATE('%Y%m%d', event_date) AS day,
    traffic_source.name AS campaign,
    COUNT(DISTINCT CONCAT(user_pseudo_id, CAST((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS STRING))) AS sessions,
    SUM(IF(event_name = 'purchase', ecommerce.purchase_revenue, 0)) AS revenue
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  GROUP BY 1, 2
)
SELECT s.day, s.campaign, s.sessions, s.revenue, c.cost, SAFE_DIVIDE(s.revenue, c.cost) AS roas
FROM sessions AS s
LEFT JOIN mkt_eu.ads_campaign_cost AS c ON c.day = s.day AND c.campaign_name = s.campaign
;;
-- model: GA4 events per day with the table suffix as a date column
-- reads: analytics_123456
SELECT PARSE_DATE('%Y%m%d', _TABLE_SUFFIX) AS day, COUNT(*) AS events
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 14 DAY)) AND FORMAT_DATE('%Y%m%d', CURRENT_DATE())
  AND _TABLE_SUFFIX NOT LIKE 'intraday%'
GROUP BY day
ORDER BY day
;;
-- model: GA4 event parameters pivoted to columns with MAX(IF(...)) after CROSS JOIN UNNEST
-- reads: analytics_123456
SELECT
  e.event_timestamp,
  e.user_pseudo_id,
  MAX(IF(p.key = 'page_title', p.value.string_value, NULL)) AS page_title,
  MAX(IF(p.key = 'engagement_time_msec', p.value.int_value, NULL)) AS engagement_time_msec,
  MAX(IF(p.key = 'ga_session_number', p.value.int_value, NULL)) AS session_number
FROM `analytics_123456.events_20240115` AS e
CROSS JOIN UNNEST(e.event_params) AS p
GROUP BY 1, 2
;;
-- model: GA4 user-level first and last seen with user_first_touch_timestamp
-- reads: analytics_123456
SELECT
  user_pseudo_id,
  TIMESTAMP_MICROS(MIN(user_first_touch_timestamp)) AS first_touch,
  MAX(PARSE_DATE('%Y%m%d', event_date)) AS last_seen,
  COUNT(DISTINCT event_date) AS active_days,
  MAX(user_ltv.revenue) AS ltv
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX >= '20240101'
GROUP BY user_pseudo_id
;;
-- model: GA4 product list performance: items viewed in lists vs added to cart (item_list_name)
-- reads: analytics_123456
SELECT
  i.item_list_name,
  COUNTIF(event_name = 'view_item_list') AS list_views,
  COUNTIF(event_name = 'select_item') AS list_clicks,
  COUNTIF(event_name = 'add_to_cart') AS adds
FROM `analytics_123456.events_*` AS e, e.items AS i
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY 1
;;
-- model: GA4 sessions with a non-zero engagement flag via EXISTS of a correlated subquery in the select list
-- reads: analytics_123456
SELECT
  event_date,
  COUNTIF(EXISTS(SELECT 1 FROM UNNEST(event_params) WHERE key = 'session_engaged' AND value.string_value = '1')) AS engaged_events,
  COUNT(*) AS events
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
GROUP BY event_date
;;
-- model: GA4 a session's pages as an ordered path string (STRING_AGG over a subquery of events)
-- reads: analytics_123456
SELECT
  session_key,
  STRING_AGG(page, ' > ' ORDER BY ts) AS path
FROM (
  SELECT
    CONCAT(user_pseudo_id, '.', CAST((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS STRING)) AS session_key,
    REGEXP_REPLACE((SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location'), r'\?.*$', '') AS page,
    event_timestamp AS ts
  FROM `analytics_123456.events_20240115`
  WHERE event_name = 'page_view'
)
GROUP BY session_key
HAVING COUNT(*) BETWEEN 2 AND 20
;;
-- model: GA4 weekly cohort retention from first_visit (DATE_DIFF in weeks)
-- reads: analytics_123456
WITH first_seen AS (
  SELECT user_pseudo_id, MIN(PARSE_DATE('%Y%m%d', event_date)) AS cohort_day
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240331' AND event_name = 'first_visit'
  GROUP BY 1
), activity AS (
  SELECT DISTINCT user_pseudo_id, PARSE_DATE('%Y%m%d', event_date) AS day
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240331'
)
SELECT
  DATE_TRUNC(f.cohort_day, WEEK) AS cohort_week,
  DATE_DIFF(a.day, f.cohort_day, WEEK) AS week_n,
  COUNT(DISTINCT a.user_pseudo_id) AS users
FROM first_seen AS f
JOIN activity AS a USING (user_pseudo_id)
GROUP BY 1, 2
ORDER BY 1, 2
;;
-- model: GA4 pipe query: parameter extraction, filter and aggregate in pipe syntax
-- reads: analytics_123456
FROM `analytics_123456.events_*`
|> WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107' AND event_name = 'page_view'
|> EXTEND (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_title') AS page_title
|> AGGREGATE COUNT(*) AS views GROUP BY page_title
|> ORDER BY views DESC
|> LIMIT 25
;;
-- model: GA4 daily table of the sample ecommerce dataset with a scalar subquery (public data)
-- reads: bigquery-public-data.ga4_obfuscated_sample_ecommerce
SELECT
  event_name,
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_title') AS page_title,
  COUNT(*) AS n
FROM `bigquery-public-data.ga4_obfuscated_sample_ecommerce.events_20210131`
GROUP BY 1, 2
ORDER BY n DESC
LIMIT 20
;;
-- model: GA4 intraday and daily tables unioned explicitly (UNION ALL of two wildcards)
-- reads: analytics_123456
SELECT event_date, event_name, user_pseudo_id FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
UNION ALL
SELECT event_date, event_name, user_pseudo_id FROM `analytics_123456.events_intraday_*`
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', CURRENT_DATE())
;;
-- model: GA4 items of purchases with the event's transaction through the implicit alias of the daily table
-- reads: analytics_123456
SELECT
  ecommerce.transaction_id,
  (SELECT COUNT(DISTINCT item_id) FROM events_20240115.items) AS distinct_items,
  (SELECT SUM(quantity) FROM UNNEST(items)) AS units
FROM analytics_123456.events_20240115
WHERE event_name = 'purchase'
;;
-- model: GA4 scheduled query appending yesterday's sessions to a reporting table
-- reads: analytics_123456, mkt_eu
-- writes
INSERT INTO mkt_eu.ga4_daily_sessions (day, source, medium, sessions)
SELECT
  PARSE_DATE('%Y%m%d', event_date),
  traffic_source.source,
  traffic_source.medium,
  COUNT(DISTINCT CONCAT(user_pseudo_id, CAST((SELECT value.int_value FROM UNNEST(e.event_params) WHERE key = 'ga_session_id') AS STRING)))
FROM `analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
GROUP BY 1, 2, 3
;;
-- model: GA4 flattened events table materialized daily (CREATE TABLE ... PARTITION BY AS)
-- reads: analytics_123456, staging
-- writes
CREATE OR REPLACE TABLE staging.ga4_events_flat
PARTITION BY event_day
CLUSTER BY event_name
AS
SELECT
  PARSE_DATE('%Y%m%d', event_date) AS event_day,
  event_name,
  user_pseudo_id,
  (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS session_id,
  (SELECT value.string_value FROM e.event_params WHERE key = 'page_location') AS page_location,
  (SELECT value.string_value FROM e.user_properties WHERE key = 'plan') AS plan
FROM `p.analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
;;
-- ===== Issue 35 (corpus): dbt-bigquery compiled output (dbt-core's
-- default merge and view macros, dbt-bigquery's table, incremental and
-- snapshot materializations, dbt's generic tests, dbt_utils macros). =====
-- model: dbt view materialization, compiled (create or replace view ... OPTIONS() as)
-- reads: staging, sales
-- writes
create or replace view `p`.`staging`.`stg_orders`
  OPTIONS()
  as with source as (

    select * from `p`.`sales`.`orders`

),

renamed as (

    select
        order_id,
        customer_id,
        order_date as ordered_on,
        status as order_status
    from source

)

select * from renamed
;;
-- model: dbt view with persist_docs and labels in OPTIONS
-- reads: staging
-- writes
create or replace view `p`.`staging`.`stg_customers`
  OPTIONS(
      description="""Customers, one row per customer""",
    
      labels=[('dbt_model', 'stg_customers'), ('team', 'analytics')]
    )
  as select customer_id, lower(trim(email)) as email, created_at from `p`.`staging`.`raw_customers`
;;
-- model: dbt table materialization with partition_by, cluster_by and OPTIONS (dbt-bigquery table.sql)
-- reads: staging, sales
-- writes
  
    

    create or replace table `p`.`sales`.`fct_orders`
      
    partition by order_date
    cluster by customer_id, order_status

    OPTIONS(
      description="""Orders fact table"""
    )
    as (
      

with orders as (
    select * from `p`.`staging`.`stg_orders`
),
payments as (
    select order_id, sum(amount) as amount from `p`.`staging`.`stg_payments` group by 1
)
select
    orders.order_id,
    orders.customer_id,
    orders.ordered_on as order_date,
    orders.order_status,
    coalesce(payments.amount, 0) as amount
from orders
left join payments using (order_id)
    );
  
;;
-- model: dbt table partitioned by timestamp_trunc with require_partition_filter and expiration
-- reads: analytics_123456, staging
-- writes
create or replace table `p`.`staging`.`int_ga4_events`
  partition by timestamp_trunc(event_ts, day)
  cluster by event_name
  OPTIONS(
    require_partition_filter=True,
    partition_expiration_days=400
  )
  as (
    select timestamp_micros(event_timestamp) as event_ts, event_name, user_pseudo_id
    from `p`.`analytics_123456`.`events_*`
    where _table_suffix >= '20240101'
  );
;;
-- model: dbt table partitioned by an integer range (range_bucket partition_by config)
-- reads: sales
-- writes
create or replace table `p`.`sales`.`customer_buckets`
  partition by range_bucket(customer_id, generate_array(0, 1000000, 1000))
  OPTIONS()
  as (
    select customer_id, count(*) as orders from `p`.`sales`.`orders` group by 1
  );
;;
-- model: dbt incremental merge strategy, compiled (merge into ... as DBT_INTERNAL_DEST)
-- reads: sales, staging
-- writes
    merge into `p`.`sales`.`fct_orders` as DBT_INTERNAL_DEST
        using (
          select
    order_id,
    customer_id,
    order_date,
    order_status,
    amount
from `p`.`staging`.`stg_orders`
where order_date >= (select max(order_date) from `p`.`sales`.`fct_orders`)
        ) as DBT_INTERNAL_SOURCE
        on (
                DBT_INTERNAL_SOURCE.order_id = DBT_INTERNAL_DEST.order_id
            )

    
    when matched then update set
        `order_id` = DBT_INTERNAL_SOURCE.`order_id`,`customer_id` = DBT_INTERNAL_SOURCE.`customer_id`,`order_date` = DBT_INTERNAL_SOURCE.`order_date`,`order_status` = DBT_INTERNAL_SOURCE.`order_status`,`amount` = DBT_INTERNAL_SOURCE.`amount`
    

    when not matched then insert
        (`order_id`, `customer_id`, `order_date`, `order_status`, `amount`)
    values
        (`order_id`, `customer_id`, `order_date`, `order_status`, `amount`)
;;
-- model: dbt incremental merge with a composite unique_key and incremental_predicates
-- reads: analytics_123456, staging
-- writes
merge into `p`.`staging`.`ga4_sessions_daily` as DBT_INTERNAL_DEST
        using (
          select
            parse_date('%Y%m%d', event_date) as session_date,
            user_pseudo_id,
            (select value.int_value from unnest(event_params) where key = 'ga_session_id') as session_id,
            count(*) as events
          from `p`.`analytics_123456`.`events_*`
          where _table_suffix >= format_date('%Y%m%d', date_sub(current_date(), interval 3 day))
          group by 1, 2, 3
        ) as DBT_INTERNAL_SOURCE
        on (DBT_INTERNAL_DEST.session_date >= date_sub(current_date(), interval 3 day)) and (
                    DBT_INTERNAL_SOURCE.session_date = DBT_INTERNAL_DEST.session_date
                ) and (
                    DBT_INTERNAL_SOURCE.user_pseudo_id = DBT_INTERNAL_DEST.user_pseudo_id
                ) and (
                    DBT_INTERNAL_SOURCE.session_id = DBT_INTERNAL_DEST.session_id
                )

    when matched then update set
        `events` = DBT_INTERNAL_SOURCE.`events`

    when not matched then insert
        (`session_date`, `user_pseudo_id`, `session_id`, `events`)
    values
        (`session_date`, `user_pseudo_id`, `session_id`, `events`)
;;
-- model: dbt incremental merge from the __dbt_tmp relation (on_schema_change runs)
-- reads: sales
-- writes
merge into `p`.`sales`.`fct_payments` as DBT_INTERNAL_DEST
        using `p`.`sales`.`fct_payments__dbt_tmp` as DBT_INTERNAL_SOURCE
        on (
                DBT_INTERNAL_SOURCE.payment_id = DBT_INTERNAL_DEST.payment_id
            )
    when matched then update set
        `payment_id` = DBT_INTERNAL_SOURCE.`payment_id`,`amount` = DBT_INTERNAL_SOURCE.`amount`
    when not matched then insert
        (`payment_id`, `amount`)
    values
        (`payment_id`, `amount`)
;;
-- model: dbt incremental append strategy without unique_key (insert into ... select)
-- reads: sales, staging
-- writes
insert into `p`.`sales`.`events_log` (`event_id`, `event_ts`, `payload`)
    (
       select `event_id`, `event_ts`, `payload`
       from `p`.`staging`.`events_log__dbt_tmp`
    )
;;
-- model: dbt insert_overwrite after an on_schema_change check: temp table, merge and drop (a script)
-- reads: sales, staging
-- writes
-- refused: script
create or replace table `p`.`sales`.`fct_daily__dbt_tmp`
  partition by order_date
  OPTIONS(expiration_timestamp=TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 12 hour))
  as (select order_date, sum(amount) as revenue from `p`.`staging`.`stg_orders` group by 1);

merge into `p`.`sales`.`fct_daily` as DBT_INTERNAL_DEST
    using (select * from `p`.`sales`.`fct_daily__dbt_tmp`) as DBT_INTERNAL_SOURCE
    on FALSE
when not matched by source
     and DBT_INTERNAL_DEST.order_date in (date_sub(current_date, interval 1 day), current_date)
    then delete
when not matched then insert
    (`order_date`, `revenue`)
values
    (`order_date`, `revenue`);

drop table if exists `p`.`sales`.`fct_daily__dbt_tmp`
;;
-- model: dbt insert_overwrite with dynamic partitions and _dbt_max_partition (declare/set script)
-- reads: sales, staging
-- writes
-- refused: script
declare dbt_partitions_for_replacement array<date>;
declare _dbt_max_partition date default (
      select max(order_date) from `p`.`sales`.`fct_daily`
      where order_date is not null
    );

create or replace table `p`.`sales`.`fct_daily__dbt_tmp`
  partition by order_date
  OPTIONS(expiration_timestamp=TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 12 hour))
  as (
    select order_date, sum(amount) as revenue from `p`.`staging`.`stg_orders`
    where order_date >= _dbt_max_partition
    group by 1
  );

set (dbt_partitions_for_replacement) = (
      select as struct
          array_agg(distinct date(order_date) IGNORE NULLS)
      from `p`.`sales`.`fct_daily__dbt_tmp`
  );

merge into `p`.`sales`.`fct_daily` as DBT_INTERNAL_DEST
    using (select * from `p`.`sales`.`fct_daily__dbt_tmp`) as DBT_INTERNAL_SOURCE
    on FALSE
when not matched by source
     and date(DBT_INTERNAL_DEST.order_date) in unnest(dbt_partitions_for_replacement)
    then delete
when not matched then insert
    (`order_date`, `revenue`)
values
    (`order_date`, `revenue`);

drop table if exists `p`.`sales`.`fct_daily__dbt_tmp`
;;
-- model: dbt microbatch batch on BigQuery (insert_overwrite of one batch's partition, a script)
-- reads: analytics_123456, staging
-- writes
-- refused: script
create or replace table `p`.`staging`.`ga4_daily__dbt_tmp_20240115`
  partition by event_day
  OPTIONS(expiration_timestamp=TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 12 hour))
  as (
    select parse_date('%Y%m%d', event_date) as event_day, count(*) as events
    from `p`.`analytics_123456`.`events_20240115` group by 1
  );
merge into `p`.`staging`.`ga4_daily` as DBT_INTERNAL_DEST
    using (select * from `p`.`staging`.`ga4_daily__dbt_tmp_20240115`) as DBT_INTERNAL_SOURCE
    on FALSE
when not matched by source and DBT_INTERNAL_DEST.event_day = '2024-01-15' then delete
when not matched then insert (`event_day`, `events`) values (`event_day`, `events`)
;;
-- model: dbt snapshot first run, compiled (create table as with dbt_scd_id and validity columns)
-- reads: sales, snapshots
-- writes
  
    

    create or replace table `p`.`snapshots`.`orders_snapshot`
      
    
    

    OPTIONS()
    as (
      
    

    select *,
        to_hex(md5(concat(coalesce(cast(order_id as string), ''), '|',coalesce(cast(updated_at as string), '')))) as dbt_scd_id,
        updated_at as dbt_updated_at,
        updated_at as dbt_valid_from,
        nullif(updated_at, updated_at) as dbt_valid_to
    from (
        select * from `p`.`sales`.`orders`
    ) sbq

    );
  
;;
-- model: dbt snapshot merge, compiled (snapshot_merge_sql)
-- reads: snapshots
-- writes
merge into `p`.`snapshots`.`orders_snapshot` as DBT_INTERNAL_DEST
    using `p`.`snapshots`.`orders_snapshot__dbt_tmp` as DBT_INTERNAL_SOURCE
    on DBT_INTERNAL_SOURCE.dbt_scd_id = DBT_INTERNAL_DEST.dbt_scd_id

    when matched
     and DBT_INTERNAL_DEST.dbt_valid_to is null
     and DBT_INTERNAL_SOURCE.dbt_change_type in ('update', 'delete')
        then update
        set dbt_valid_to = DBT_INTERNAL_SOURCE.dbt_valid_to

    when not matched
     and DBT_INTERNAL_SOURCE.dbt_change_type = 'insert'
        then insert (`order_id`, `status`, `updated_at`, `dbt_updated_at`, `dbt_valid_from`, `dbt_valid_to`, `dbt_scd_id`)
        values (`order_id`, `status`, `updated_at`, `dbt_updated_at`, `dbt_valid_from`, `dbt_valid_to`, `dbt_scd_id`)
;;
-- model: dbt snapshot staging query (snapshot_staging_table: insertions and updates CTEs)
-- reads: sales, snapshots
with snapshot_query as (
        select * from `p`.`sales`.`orders`
    ),
    snapshotted_data as (
        select *, order_id as dbt_unique_key
        from `p`.`snapshots`.`orders_snapshot`
        where dbt_valid_to is null
    ),
    insertions_source_data as (
        select *, order_id as dbt_unique_key, updated_at as dbt_updated_at, updated_at as dbt_valid_from,
            nullif(updated_at, updated_at) as dbt_valid_to,
            to_hex(md5(concat(coalesce(cast(order_id as string), ''), '|', coalesce(cast(updated_at as string), '')))) as dbt_scd_id
        from snapshot_query
    ),
    insertions as (
        select 'insert' as dbt_change_type, source_data.*
        from insertions_source_data as source_data
        left outer join snapshotted_data on snapshotted_data.dbt_unique_key = source_data.dbt_unique_key
        where snapshotted_data.dbt_unique_key is null
           or (snapshotted_data.dbt_unique_key is not null and (snapshotted_data.dbt_valid_from < source_data.updated_at))
    )
select * from insertions
;;
-- model: dbt generic test not_null, compiled (store_failures off: count of failures)
-- reads: sales
select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    

select order_id
from `p`.`sales`.`fct_orders`
where order_id is null



  
  
      
    ) dbt_internal_test
;;
-- model: dbt generic test accepted_values, compiled
-- reads: sales
with all_values as (

    select
        order_status as value_field,
        count(*) as n_records

    from `p`.`sales`.`fct_orders`
    group by order_status

)

select *
from all_values
where value_field not in (
    'placed','shipped','completed','return_pending','returned'
)
;;
-- model: dbt generic test relationships with a where config, compiled
-- reads: sales, staging
select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
with child as (
    select customer_id as from_field
    from (select * from `p`.`sales`.`fct_orders` where order_date >= '2024-01-01') dbt_subquery
    where customer_id is not null
),

parent as (
    select customer_id as to_field
    from `p`.`staging`.`stg_customers`
)

select
    from_field

from child
left join parent
    on child.from_field = parent.to_field

where parent.to_field is null
    ) dbt_internal_test
;;
-- model: dbt_utils.unique_combination_of_columns test, compiled
-- reads: staging
with validation_errors as (

    select
        session_date, user_pseudo_id, session_id
    from `p`.`staging`.`ga4_sessions_daily`
    group by session_date, user_pseudo_id, session_id
    having count(*) > 1

)

select *
from validation_errors
;;
-- model: dbt_utils.expression_is_true and recency tests, compiled
-- reads: sales
with meet_condition as (
    select * from `p`.`sales`.`fct_orders` where 1=1
)
select *
from meet_condition
where not(amount >= 0)
union all
select 1 as order_id, null, null, null, null
from (
  select max(timestamp(order_date)) as most_recent
  from `p`.`sales`.`fct_orders`
)
where most_recent < timestamp_sub(current_timestamp(), interval 1 day)
;;
-- model: dbt_utils.generate_surrogate_key, compiled (to_hex(md5(...)) with null sentinels)
-- reads: staging
select
    to_hex(md5(cast(coalesce(cast(user_pseudo_id as string), '_dbt_utils_surrogate_key_null_') || '-' || coalesce(cast(session_id as string), '_dbt_utils_surrogate_key_null_') as string))) as session_key,
    *
from `p`.`staging`.`ga4_sessions_daily`
;;
-- model: dbt_utils.union_relations, compiled (a _dbt_source_relation column per relation)
-- reads: sales
(
            select
                cast('`p`.`sales`.`orders_eu`' as string) as _dbt_source_relation,
                cast(`order_id` as INT64) as `order_id`,
                cast(`amount` as NUMERIC) as `amount`,
                cast(null as STRING) as `vat_id`
            from `p`.`sales`.`orders_eu`
        )

        union all
        

        (
            select
                cast('`p`.`sales`.`orders_us`' as string) as _dbt_source_relation,
                cast(`order_id` as INT64) as `order_id`,
                cast(`amount` as NUMERIC) as `amount`,
                cast(`vat_id` as STRING) as `vat_id`
            from `p`.`sales`.`orders_us`
        )
;;
-- model: dbt_utils.date_spine, compiled (generate_series CTE of powers of two)
-- reads:
with rawdata as (
    with p as (
        select 0 as generated_number union all select 1
    ), unioned as (
    select
    p0.generated_number * power(2, 0)
     + p1.generated_number * power(2, 1)
     + p2.generated_number * power(2, 2)
     + p3.generated_number * power(2, 3)
     + p4.generated_number * power(2, 4)
     + p5.generated_number * power(2, 5)
     + 1
    as generated_number
    from p as p0
     cross join p as p1
     cross join p as p2
     cross join p as p3
     cross join p as p4
     cross join p as p5
    )
    select * from unioned
    where generated_number <= 60
    order by generated_number
),
all_periods as (
    select (
        datetime_add(cast('2024-01-01' as datetime), interval row_number() over (order by 1) - 1 day)
    ) as date_day
    from rawdata
),
filtered as (
    select * from all_periods
    where date_day <= cast('2024-03-01' as datetime)
)
select * from filtered
;;
-- model: dbt_utils.pivot, compiled (sum(case when ...) per value)
-- reads: staging
select
  order_id,
  sum(case when payment_method = 'credit_card' then amount else 0 end) as `credit_card_amount`,
  sum(case when payment_method = 'coupon' then amount else 0 end) as `coupon_amount`,
  sum(case when payment_method = 'bank_transfer' then amount else 0 end) as `bank_transfer_amount`,
  sum(case when payment_method = 'gift_card' then amount else 0 end) as `gift_card_amount`
from `p`.`staging`.`stg_payments`
group by 1
;;
-- model: dbt adapter get_columns_in_relation / list_relations (dataset INFORMATION_SCHEMA)
-- reads: staging
select table_catalog as database, table_name as name, table_schema as schema,
       case when table_type = 'VIEW' then 'view' else 'table' end as type
from `p`.`staging`.INFORMATION_SCHEMA.TABLES
;;
-- model: dbt "dbt show" preview with a limit wrapper, compiled
-- reads: sales
select * from (
    select customer_id, count(*) as orders from `p`.`sales`.`fct_orders` group by 1
) as model_limit_subq
limit 5
;;
-- model: dbt unit test fixture rows as a UNION ALL of casted literals, compiled
-- reads:
select cast(1 as INT64) as order_id, cast('2024-01-01' as DATE) as order_date, cast(10.5 as NUMERIC) as amount
union all
select cast(2 as INT64) as order_id, cast('2024-01-02' as DATE) as order_date, cast(null as NUMERIC) as amount
;;
-- model: dbt seed load, compiled (create table then insert values)
-- reads: staging
-- writes
insert into `p`.`staging`.`country_codes` (`code`, `name`) values
    ('DE', 'Germany'), ('FR', 'France'), ('US', 'United States')
;;
-- model: dbt materialized_view materialization (dbt-bigquery materialized_view.sql)
-- reads: sales
-- writes
create materialized view if not exists `p`.`sales`.`mv_daily_revenue`
    partition by order_date
    cluster by region
    OPTIONS(enable_refresh=True, refresh_interval_minutes=30)
    as select order_date, region, sum(amount) as revenue, count(*) as orders
from `p`.`sales`.`orders`
group by order_date, region
;;
-- model: dbt grants config applied after a build (grant ... on table)
-- reads: sales
-- writes
grant `roles/bigquery.dataViewer` on table `p`.`sales`.`fct_orders` to "group:analysts@example.com"
;;
-- model: dbt rename of the intermediate relation after a full refresh (alter table rename)
-- reads: sales
-- writes
alter table `p`.`sales`.`fct_orders__dbt_tmp` rename to `fct_orders`
;;
-- model: dbt model description persisted to a column (alter table alter column set options)
-- reads: sales
-- writes
alter table `p`.`sales`.`fct_orders` alter column `amount` set options (description="""Order amount in EUR""")
;;
-- model: dbt cleanup of a temp relation (drop table if exists)
-- reads: staging
-- writes
drop table if exists `p`.`staging`.`events_log__dbt_tmp`
;;
-- model: dbt create schema for a new target (create schema if not exists)
-- reads: dbt_ci_1234
-- writes
create schema if not exists `p`.`dbt_ci_1234`
;;
-- ===== Issue 35 (corpus): BigQuery's documentation examples for every
-- statement kind (DML, DDL, DCL, EXPORT/LOAD, scripting, transactions). =====
-- model: DML reference, UPDATE of a repeated field from a correlated path of the target's alias
-- reads: sales
-- writes
UPDATE sales.orders AS o
SET amount = (SELECT SUM(i.price * i.quantity) FROM o.items AS i)
WHERE order_date = CURRENT_DATE()
;;
-- model: DML reference, UPDATE appending to an array with ARRAY(... UNION ALL ...) over the target's own column
-- reads: sales
-- writes
UPDATE sales.detailed_inventory
SET comments = ARRAY(
  SELECT comment FROM UNNEST(comments) AS comment
  UNION ALL
  SELECT (CAST('2024-01-01' AS DATE), 'comment1')
)
WHERE product LIKE 'washer%'
;;
-- model: DML reference, UPDATE of a STRUCT field and a nested repeated field with a correlated subquery of the target alias
-- reads: sales
-- writes
UPDATE sales.detailed_inventory AS d
SET specifications.color = 'white',
    specifications.dimensions.depth = 27.8,
    supply_constrained = (SELECT LOGICAL_OR(c.quantity < 10) FROM d.comments AS c)
WHERE product = 'washer'
;;
-- model: DML reference, DELETE with an alias and a correlated EXISTS over its own array
-- reads: sales
-- writes
DELETE FROM sales.orders AS o
WHERE NOT EXISTS (SELECT 1 FROM o.items AS i WHERE i.quantity > 0)
;;
-- model: DML reference, DELETE with IN of a subquery over another table
-- reads: sales, staging
-- writes
DELETE sales.customers
WHERE customer_id IN (SELECT customer_id FROM staging.erasure_requests WHERE processed = FALSE)
;;
-- model: DML reference, MERGE with INSERT ROW and a BY TARGET clause
-- reads: sales, staging
-- writes
MERGE sales.inventory AS T
USING staging.new_arrivals AS S
ON T.product = S.product
WHEN MATCHED THEN UPDATE SET quantity = T.quantity + S.quantity
WHEN NOT MATCHED BY TARGET THEN INSERT ROW
;;
-- model: DML reference, MERGE with a correlated condition on the target's array
-- reads: sales, staging
-- writes
MERGE sales.orders AS T
USING staging.order_updates AS S
ON T.order_id = S.order_id
WHEN MATCHED AND (SELECT COUNT(*) FROM T.items) = 0 THEN DELETE
WHEN MATCHED THEN UPDATE SET status = S.status
;;
-- model: DML reference, MERGE whose source is a UNION ALL subquery and ON is a constant FALSE (replace a partition)
-- reads: sales, staging
-- writes
MERGE sales.daily_summary AS T
USING (
  SELECT order_date, COUNT(*) AS orders, SUM(amount) AS revenue FROM staging.orders_raw GROUP BY order_date
  UNION ALL
  SELECT order_date, orders, revenue FROM staging.daily_adjustments
) AS S
ON FALSE
WHEN NOT MATCHED AND S.order_date >= '2024-01-01' THEN INSERT (order_date, orders, revenue) VALUES (order_date, orders, revenue)
WHEN NOT MATCHED BY SOURCE AND T.order_date >= '2024-01-01' THEN DELETE
;;
-- model: DML reference, INSERT with a WITH clause before the SELECT
-- reads: sales, staging
-- writes
INSERT sales.daily_summary (order_date, orders, revenue)
WITH d AS (SELECT order_date, amount FROM staging.orders_raw WHERE order_date = CURRENT_DATE() - 1)
SELECT order_date, COUNT(*), SUM(amount) FROM d GROUP BY order_date
;;
-- model: DML reference, INSERT of a STRUCT and an ARRAY with an explicit column list
-- reads: sales
-- writes
INSERT INTO sales.detailed_inventory (product, quantity, supply_constrained, comments, specifications)
VALUES ('top load washer', 10, FALSE, [(DATE '2024-01-01', 'comment1')], ('blue', STRUCT(32.6, 47.1)))
;;
-- model: DML reference, INSERT a copy of rows with a transformed column (INSERT SELECT * REPLACE)
-- reads: sales
-- writes
INSERT INTO sales.orders_archive
SELECT * REPLACE (UPPER(status) AS status) FROM sales.orders WHERE order_date < '2023-01-01'
;;
-- model: DML reference, TRUNCATE of a partitioned staging table before a reload
-- reads: staging
-- writes
TRUNCATE TABLE `p.staging.orders_raw`
;;
-- model: DDL reference, CREATE TABLE IF NOT EXISTS with labels, description and a JSON and a RANGE column
-- reads: sales
-- writes
CREATE TABLE IF NOT EXISTS sales.subscriptions (
  subscription_id STRING NOT NULL OPTIONS (description = 'Primary key'),
  customer_id INT64,
  active_period RANGE<DATE>,
  attributes JSON,
  plan STRUCT<name STRING, price NUMERIC(10, 2)>,
  PRIMARY KEY (subscription_id) NOT ENFORCED
)
OPTIONS (
  description = 'One row per subscription',
  labels = [('domain', 'billing'), ('pii', 'false')]
)
;;
-- model: DDL reference, CREATE TABLE with a default collation and a case-insensitive column
-- reads: sales
-- writes
CREATE TABLE sales.customer_names (
  customer_id INT64,
  name STRING COLLATE 'und:ci',
  city STRING
)
DEFAULT COLLATE 'und:ci'
;;
-- model: DDL reference, CREATE TABLE partitioned by ingestion time (_PARTITIONDATE)
-- reads: staging
-- writes
CREATE TABLE staging.raw_clicks (click_id STRING, url STRING, ts TIMESTAMP)
PARTITION BY _PARTITIONDATE
OPTIONS (partition_expiration_days = 30, require_partition_filter = TRUE)
;;
-- model: DDL reference, CREATE TEMP TABLE then a query (a script)
-- reads: sales
-- writes
-- refused: script
CREATE TEMP TABLE top_customers AS
SELECT customer_id, SUM(amount) AS total FROM sales.orders GROUP BY customer_id ORDER BY total DESC LIMIT 100;
SELECT c.*, t.total FROM sales.customers AS c JOIN top_customers AS t USING (customer_id)
;;
-- model: DDL reference, CREATE TABLE ... CLONE FOR SYSTEM_TIME AS OF with OPTIONS
-- reads: sales, staging
-- writes
CREATE TABLE staging.orders_clone_yesterday
CLONE sales.orders FOR SYSTEM_TIME AS OF TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 7 DAY))
;;
-- model: DDL reference, CREATE OR REPLACE TABLE FUNCTION with a TABLE parameter
-- reads: sales
-- writes
CREATE OR REPLACE TABLE FUNCTION sales.top_n(t TABLE<customer_id INT64, amount NUMERIC>, n INT64)
AS
SELECT customer_id, SUM(amount) AS total FROM t GROUP BY customer_id ORDER BY total DESC LIMIT n
;;
-- model: table functions docs, calling a TVF with a TABLE argument
-- reads: sales
SELECT * FROM sales.top_n(TABLE sales.orders, 10)
;;
-- model: DDL reference, CREATE TEMP FUNCTION with ANY TYPE (templated SQL UDF) then a query
-- reads: sales
CREATE TEMP FUNCTION last_element(arr ANY TYPE) AS (arr[ORDINAL(ARRAY_LENGTH(arr))]);
SELECT order_id, last_element(items).sku AS last_sku FROM sales.orders
;;
-- model: DDL reference, CREATE FUNCTION IF NOT EXISTS with a description and RETURNS
-- reads: finance
-- writes
CREATE FUNCTION IF NOT EXISTS finance.net_amount(gross NUMERIC, vat_rate NUMERIC)
RETURNS NUMERIC
OPTIONS (description = 'Gross amount without VAT')
AS (ROUND(gross / (1 + vat_rate), 2))
;;
-- model: DDL reference, CREATE VIEW IF NOT EXISTS with a WITH clause and labels
-- reads: finance, sales
-- writes
CREATE VIEW IF NOT EXISTS finance.monthly_revenue
OPTIONS (labels = [('owner', 'finance')], expiration_timestamp = TIMESTAMP '2030-01-01 00:00:00 UTC')
AS
WITH m AS (SELECT DATE_TRUNC(order_date, MONTH) AS month, amount FROM sales.orders)
SELECT month, SUM(amount) AS revenue FROM m GROUP BY month
;;
-- model: DDL reference, CREATE MATERIALIZED VIEW with allow_non_incremental_definition
-- reads: sales
-- writes
CREATE MATERIALIZED VIEW sales.mv_customer_last_order
OPTIONS (enable_refresh = TRUE, refresh_interval_minutes = 60, max_staleness = INTERVAL '4:0:0' HOUR TO SECOND, allow_non_incremental_definition = TRUE)
AS
SELECT customer_id, MAX(order_date) AS last_order, ARRAY_AGG(order_id ORDER BY order_date DESC LIMIT 5) AS recent
FROM sales.orders
GROUP BY customer_id
;;
-- model: DDL reference, CREATE MATERIALIZED VIEW AS REPLICA OF (materialized view replicas)
-- reads: sales
-- writes
CREATE MATERIALIZED VIEW sales.mv_daily_replica
AS REPLICA OF sales.mv_daily_revenue
;;
-- model: DDL reference, ALTER TABLE ADD COLUMN IF NOT EXISTS with OPTIONS and DEFAULT
-- reads: sales
-- writes
ALTER TABLE sales.orders
ADD COLUMN IF NOT EXISTS channel STRING DEFAULT 'web' OPTIONS (description = 'Sales channel'),
ADD COLUMN IF NOT EXISTS updated_at TIMESTAMP
;;
-- model: DDL reference, ALTER TABLE ADD PRIMARY KEY and ADD FOREIGN KEY NOT ENFORCED
-- reads: sales
-- writes
ALTER TABLE sales.orders
ADD PRIMARY KEY (order_id) NOT ENFORCED,
ADD CONSTRAINT fk_customer FOREIGN KEY (customer_id) REFERENCES sales.customers(customer_id) NOT ENFORCED
;;
-- model: DDL reference, ALTER TABLE DROP PRIMARY KEY and DROP CONSTRAINT
-- reads: sales
-- writes
ALTER TABLE sales.orders DROP CONSTRAINT IF EXISTS fk_customer, DROP PRIMARY KEY IF EXISTS
;;
-- model: DDL reference, ALTER COLUMN SET DEFAULT and SET OPTIONS
-- reads: sales
-- writes
ALTER TABLE sales.orders
ALTER COLUMN status SET DEFAULT 'placed',
ALTER COLUMN amount SET OPTIONS (description = 'Amount in EUR, VAT included')
;;
-- model: DDL reference, ALTER TABLE SET DEFAULT COLLATE and labels
-- reads: sales
-- writes
ALTER TABLE sales.customers SET DEFAULT COLLATE 'und:ci'
;;
-- model: DDL reference, ALTER VIEW ALTER COLUMN SET OPTIONS
-- reads: finance
-- writes
ALTER VIEW finance.monthly_revenue ALTER COLUMN revenue SET OPTIONS (description = 'Revenue in EUR')
;;
-- model: DDL reference, ALTER SCHEMA SET DEFAULT COLLATE and ALTER SCHEMA SET OPTIONS with storage billing
-- reads: staging
-- writes
ALTER SCHEMA IF EXISTS staging SET OPTIONS (default_table_expiration_days = 7, storage_billing_model = 'PHYSICAL', max_time_travel_hours = 48)
;;
-- model: DDL reference, ALTER SCHEMA ADD REPLICA (cross-region dataset replication)
-- reads: sales
-- writes
ALTER SCHEMA sales ADD REPLICA `eu` OPTIONS (location = 'eu')
;;
-- model: DDL reference, DROP SCHEMA CASCADE and UNDROP SCHEMA
-- reads: dbt_ci_1234
-- writes
DROP SCHEMA IF EXISTS `p.dbt_ci_1234` CASCADE
;;
-- model: DDL reference, UNDROP SCHEMA
-- reads: dbt_ci_1234
-- writes
-- plan: UNDROP_SCHEMA
UNDROP SCHEMA IF NOT EXISTS dbt_ci_1234
;;
-- model: DDL reference, CREATE SEARCH INDEX on ALL COLUMNS with an analyzer
-- reads: staging
-- writes
CREATE SEARCH INDEX IF NOT EXISTS logs_index ON staging.app_logs (ALL COLUMNS)
OPTIONS (analyzer = 'LOG_ANALYZER', data_types = ['STRING', 'INT64'])
;;
-- model: DDL reference, DROP SEARCH INDEX
-- reads: staging
-- writes
DROP SEARCH INDEX IF EXISTS logs_index ON staging.app_logs
;;
-- model: DDL reference, CREATE VECTOR INDEX with STORING columns and IVF options
-- reads: sales
-- writes
CREATE OR REPLACE VECTOR INDEX product_emb_idx ON sales.product_embeddings (embedding)
STORING (product_name, category)
OPTIONS (index_type = 'IVF', distance_type = 'COSINE', ivf_options = '{"num_lists": 500}')
;;
-- model: DDL reference, ALTER VECTOR INDEX REBUILD and DROP VECTOR INDEX
-- reads: sales
-- writes
ALTER VECTOR INDEX product_emb_idx ON sales.product_embeddings REBUILD
;;
-- model: DDL reference, DROP VECTOR INDEX
-- reads: sales
-- writes
DROP VECTOR INDEX IF EXISTS product_emb_idx ON sales.product_embeddings
;;
-- model: row-level security docs, CREATE ROW ACCESS POLICY with SESSION_USER() in the filter
-- reads: sales
-- writes
CREATE OR REPLACE ROW ACCESS POLICY own_region ON sales.orders
GRANT TO ('domain:example.com')
FILTER USING (region = (SELECT region FROM sales.sales_reps WHERE email = SESSION_USER()))
;;
-- model: row-level security docs, DROP ALL ROW ACCESS POLICIES
-- reads: sales
-- writes
DROP ALL ROW ACCESS POLICIES ON sales.orders
;;
-- model: DCL reference, GRANT on a view to several principals
-- reads: finance
-- writes
GRANT `roles/bigquery.dataViewer` ON VIEW finance.monthly_revenue
TO "user:cfo@example.com", "group:finance@example.com"
;;
-- model: DCL reference, REVOKE on a schema
-- reads: staging
-- writes
REVOKE `roles/bigquery.dataEditor` ON SCHEMA staging FROM "serviceAccount:etl@p.iam.gserviceaccount.com"
;;
-- model: DCL reference, GRANT on a table to a special group
-- reads: sales
-- writes
GRANT `roles/bigquery.dataViewer` ON TABLE `p.sales.products` TO "specialGroup:allAuthenticatedUsers"
;;
-- model: table snapshots docs, CREATE SNAPSHOT TABLE IF NOT EXISTS with labels
-- reads: sales, snapshots
-- writes
CREATE SNAPSHOT TABLE IF NOT EXISTS snapshots.orders_20240131
CLONE sales.orders
OPTIONS (expiration_timestamp = TIMESTAMP '2025-01-31 00:00:00 UTC', labels = [('kind', 'month_end')])
;;
-- model: EXPORT MODEL below the --export-gcs prefix (BigQuery ML export docs)
-- reads: ml
-- writes
EXPORT MODEL ml.churn_model OPTIONS (uri = 'gs://acme-exports/mcp/models/churn')
;;
-- model: scripting docs, a multi-statement transaction with BEGIN TRANSACTION and COMMIT
-- reads: sales, staging
-- writes
-- refused: script
BEGIN TRANSACTION;
DELETE sales.inventory WHERE quantity = 0;
INSERT INTO sales.inventory (product, quantity) SELECT product, quantity FROM staging.new_arrivals;
COMMIT TRANSACTION
;;
-- model: scripting docs, ASSERT with a message
-- reads: sales
-- refused: script
ASSERT (SELECT COUNT(*) FROM sales.orders WHERE amount < 0) = 0 AS 'negative amounts found'
;;
-- model: scripting docs, CASE statement with a SELECT in each branch
-- reads: sales
-- refused: script
DECLARE target STRING DEFAULT 'daily';
CASE target
  WHEN 'daily' THEN SELECT order_date, SUM(amount) FROM sales.orders GROUP BY 1;
  ELSE SELECT DATE_TRUNC(order_date, MONTH), SUM(amount) FROM sales.orders GROUP BY 1;
END CASE
;;
-- model: scripting docs, RAISE USING MESSAGE in an IF
-- reads: staging
-- refused: script
IF (SELECT COUNT(*) FROM staging.orders_raw) = 0 THEN
  RAISE USING MESSAGE = 'staging.orders_raw is empty';
END IF
;;
-- model: scripting docs, FOR loop with a labelled CONTINUE
-- reads: sales
-- refused: script
FOR r IN (SELECT region FROM sales.regions) DO
  IF r.region = 'TEST' THEN CONTINUE; END IF;
  SELECT r.region, COUNT(*) FROM sales.orders WHERE region = r.region;
END FOR
;;
-- model: scripting docs, EXECUTE IMMEDIATE INTO a variable
-- reads: sales
-- refused: execute-immediate
EXECUTE IMMEDIATE 'SELECT COUNT(*) FROM sales.orders WHERE region = ?' USING 'EMEA'
;;
-- model: procedures docs, CALL of a procedure with an OUT argument in a script
-- reads: sales
-- refused: script
DECLARE n INT64;
CALL sales.count_orders('EMEA', n);
SELECT n
;;
-- model: CREATE PROCEDURE with a transaction inside the body (procedures docs)
-- reads: sales, staging
-- writes
-- refused: procedure-scripting
CREATE OR REPLACE PROCEDURE sales.restock()
BEGIN
  BEGIN TRANSACTION;
  INSERT INTO sales.inventory (product, quantity) SELECT product, quantity FROM staging.new_arrivals;
  DELETE FROM staging.new_arrivals WHERE TRUE;
  COMMIT TRANSACTION;
END
;;
-- ===== Issue 35 (corpus): BigQuery's function reference, one or more
-- documentation-shaped statements per function family. =====
-- model: aggregate functions reference (AVG DISTINCT, BIT_AND, LOGICAL_AND, ARRAY_AGG IGNORE NULLS, GROUPING)
-- reads: sales
SELECT
  region,
  AVG(DISTINCT amount) AS avg_distinct_amount,
  LOGICAL_AND(amount > 0) AS all_positive,
  LOGICAL_OR(status = 'returned') AS any_returned,
  ARRAY_AGG(DISTINCT status IGNORE NULLS ORDER BY status) AS statuses,
  COUNT(DISTINCT customer_id) AS customers,
  SUM(amount) / NULLIF(COUNT(*), 0) AS mean_amount
FROM sales.orders
GROUP BY region
;;
-- model: approximate aggregate functions reference (APPROX_QUANTILES with OFFSET, APPROX_TOP_SUM)
-- reads: sales
SELECT
  APPROX_QUANTILES(amount, 100)[OFFSET(50)] AS median_amount,
  APPROX_QUANTILES(amount, 4) AS quartiles,
  APPROX_TOP_SUM(product_id, amount, 5) AS top_products_by_revenue,
  APPROX_COUNT_DISTINCT(customer_id) AS customers
FROM sales.orders
;;
-- model: array functions reference (ARRAY_REVERSE, ARRAY_INCLUDES, ARRAY_FIRST, ARRAY_SLICE, ARRAY_FILTER, ARRAY_TRANSFORM)
-- reads:
SELECT
  ARRAY_REVERSE([1, 2, 3]) AS reversed,
  ARRAY_INCLUDES(['a', 'b'], 'b') AS has_b,
  ARRAY_FIRST(['x', 'y', 'z']) AS first,
  ARRAY_LAST(['x', 'y', 'z']) AS last,
  ARRAY_SLICE([1, 2, 3, 4, 5], 1, 3) AS middle,
  ARRAY_FILTER([1, -2, 3], e -> e > 0) AS positives,
  ARRAY_TRANSFORM([1, 2, 3], e -> e * 10) AS tens,
  GENERATE_ARRAY(0, 20, 5) AS steps
;;
-- model: array functions reference, ARRAY_INCLUDES_ANY and ARRAY_IS_DISTINCT over a table's array column
-- reads: sales
SELECT order_id
FROM sales.orders
WHERE ARRAY_INCLUDES_ANY(ARRAY(SELECT sku FROM UNNEST(items)), ['SKU-1', 'SKU-2'])
  AND ARRAY_IS_DISTINCT(ARRAY(SELECT sku FROM UNNEST(items)))
;;
-- model: bit functions reference (BIT_COUNT, shifts, BIT_OR aggregate of flags)
-- reads: sales
SELECT
  customer_id,
  BIT_OR(1 << (EXTRACT(DAYOFWEEK FROM order_date) - 1)) AS weekday_mask,
  BIT_COUNT(BIT_OR(1 << (EXTRACT(DAYOFWEEK FROM order_date) - 1))) AS active_weekdays,
  BIT_XOR(order_id) AS checksum
FROM sales.orders
GROUP BY customer_id
;;
-- model: conversion functions reference (CAST ... FORMAT, SAFE_CAST, PARSE_NUMERIC, PARSE_BIGNUMERIC)
-- reads: staging
SELECT
  SAFE_CAST(raw_amount AS NUMERIC) AS amount,
  CAST(order_ts AS STRING FORMAT 'YYYY-MM-DD HH24:MI') AS ts_text,
  CAST('03/15/2024' AS DATE FORMAT 'MM/DD/YYYY') AS d,
  PARSE_NUMERIC(' -1,234.5 ') AS pn,
  PARSE_BIGNUMERIC('123456789012345678901234567890.12') AS pbn,
  CAST(b'\x61\x62' AS STRING) AS s,
  CAST(12.5 AS STRING FORMAT '$999.99') AS money
FROM staging.orders_raw
;;
-- model: date functions reference (DATE_ADD, DATE_DIFF with ISOWEEK, EXTRACT ISOYEAR, FORMAT_DATE, LAST_DAY WEEK)
-- reads:
SELECT
  DATE_ADD(DATE '2024-01-31', INTERVAL 1 MONTH) AS next_month,
  DATE_DIFF(DATE '2024-12-30', DATE '2024-01-01', ISOWEEK) AS iso_weeks,
  EXTRACT(ISOYEAR FROM DATE '2024-12-30') AS iso_year,
  FORMAT_DATE('%A, %d %B %Y', DATE '2024-02-29') AS long_form,
  LAST_DAY(DATE '2024-02-10', WEEK(MONDAY)) AS week_end,
  DATE_FROM_UNIX_DATE(19800) AS from_unix,
  DATE(2024, 2, 29) AS built
;;
-- model: datetime and time functions reference (DATETIME_TRUNC, TIME_ADD, PARSE_DATETIME, TIME_DIFF)
-- reads:
SELECT
  DATETIME_TRUNC(DATETIME '2024-03-15 14:35:10', HOUR) AS hour_start,
  DATETIME_DIFF(DATETIME '2024-03-15 18:00:00', DATETIME '2024-03-15 09:30:00', MINUTE) AS shift_minutes,
  PARSE_DATETIME('%Y-%m-%d %H:%M', '2024-03-15 09:30') AS parsed,
  TIME_ADD(TIME '23:30:00', INTERVAL 45 MINUTE) AS wrapped,
  TIME_DIFF(TIME '17:00:00', TIME '08:15:00', MINUTE) AS day_minutes,
  FORMAT_TIME('%R', TIME '14:05:00') AS hhmm,
  CURRENT_DATETIME('Asia/Tokyo') AS tokyo_now
;;
-- model: timestamp functions reference (TIMESTAMP_SECONDS, UNIX_MILLIS, FORMAT_TIMESTAMP with a zone, TIMESTAMP_TRUNC ISOWEEK)
-- reads: staging
SELECT
  TIMESTAMP_SECONDS(epoch_s) AS ts,
  UNIX_MILLIS(TIMESTAMP_SECONDS(epoch_s)) AS ms,
  FORMAT_TIMESTAMP('%Y-%m-%dT%H:%M:%S%Ez', TIMESTAMP_SECONDS(epoch_s), 'America/New_York') AS ny_iso,
  TIMESTAMP_TRUNC(TIMESTAMP_SECONDS(epoch_s), ISOWEEK, 'Europe/Paris') AS paris_week,
  PARSE_TIMESTAMP('%d/%m/%Y %H:%M', '15/03/2024 10:00', 'Europe/London') AS london,
  EXTRACT(HOUR FROM TIMESTAMP_SECONDS(epoch_s) AT TIME ZONE 'Asia/Kolkata') AS ist_hour
FROM staging.raw_clicks_epoch
;;
-- model: interval functions reference (MAKE_INTERVAL, EXTRACT from an INTERVAL, JUSTIFY_DAYS)
-- reads: sales
SELECT
  order_id,
  CURRENT_TIMESTAMP() - TIMESTAMP(order_date) AS age,
  EXTRACT(DAY FROM CURRENT_TIMESTAMP() - TIMESTAMP(order_date)) AS age_days,
  MAKE_INTERVAL(day => 3, hour => 12) AS sla,
  JUSTIFY_DAYS(INTERVAL 45 DAY) AS justified,
  JUSTIFY_HOURS(INTERVAL 50 HOUR) AS hours_justified
FROM sales.orders
WHERE order_date >= CURRENT_DATE() - 7
;;
-- model: AEAD encryption concepts, encrypt with a keyset created in the query (KEYS.NEW_KEYSET, no KMS)
-- reads: sales
SELECT
  customer_id,
  AEAD.ENCRYPT(KEYS.NEW_KEYSET('AEAD_AES_GCM_256'), email, CAST(customer_id AS STRING)) AS email_encrypted
FROM sales.customers
;;
-- model: deterministic encryption with a keyset column joined from a keys table (DETERMINISTIC_ENCRYPT)
-- reads: sales, finance
SELECT
  c.customer_id,
  DETERMINISTIC_ENCRYPT(k.keyset, c.email, '') AS email_token
FROM sales.customers AS c
JOIN finance.customer_keysets AS k USING (customer_id)
;;
-- model: AEAD with a Cloud KMS wrapped keyset outside --kms-keys (AEAD encryption docs)
-- reads: finance
-- refused: kms-key
SELECT
  AEAD.DECRYPT_STRING(
    KEYS.KEYSET_CHAIN('gcp-kms://projects/p/locations/us/keyRings/finance/cryptoKeys/pii', wrapped_keyset),
    ciphertext, '') AS plaintext
FROM finance.encrypted_ssn
;;
-- model: geography functions reference (ST_GEOGPOINT, ST_DWITHIN, ST_BUFFER, ST_AREA, ST_ASGEOJSON)
-- reads: sales
SELECT
  s.store_id,
  ST_ASGEOJSON(ST_BUFFER(ST_GEOGPOINT(s.lon, s.lat), 500)) AS catchment_geojson,
  ST_AREA(ST_BUFFER(ST_GEOGPOINT(s.lon, s.lat), 500)) AS catchment_m2,
  COUNTIF(ST_DWITHIN(ST_GEOGPOINT(s.lon, s.lat), ST_GEOGPOINT(c.lon, c.lat), 500)) AS customers_nearby
FROM sales.stores AS s
CROSS JOIN sales.customers AS c
GROUP BY s.store_id, s.lon, s.lat
;;
-- model: geography functions reference, ST_UNION_AGG, ST_CENTROID and ST_CONVEXHULL on public zip codes
-- reads: bigquery-public-data.geo_us_boundaries
SELECT
  state_code,
  ST_CENTROID(ST_UNION_AGG(zip_code_geom)) AS centroid,
  ST_CONVEXHULL(ST_UNION_AGG(zip_code_geom)) AS hull
FROM `bigquery-public-data.geo_us_boundaries.zip_codes`
WHERE state_code IN ('RI', 'DE')
GROUP BY state_code
;;
-- model: geography functions reference, ST_INTERSECTS join of points to polygons with ST_GEOGFROMGEOJSON
-- reads: sales
SELECT z.zone_name, COUNT(*) AS deliveries
FROM sales.deliveries AS d
JOIN sales.delivery_zones AS z
  ON ST_INTERSECTS(ST_GEOGPOINT(d.lon, d.lat), ST_GEOGFROMGEOJSON(z.geojson, make_valid => TRUE))
GROUP BY z.zone_name
;;
-- model: hash functions reference (MD5, SHA256, SHA512, TO_HEX, FARM_FINGERPRINT)
-- reads: sales
SELECT
  customer_id,
  TO_HEX(MD5(email)) AS md5_hex,
  TO_HEX(SHA256(LOWER(TRIM(email)))) AS hashed_email_for_ads,
  TO_BASE64(SHA512(email)) AS sha512_b64,
  FARM_FINGERPRINT(email) AS fp,
  MOD(ABS(FARM_FINGERPRINT(CAST(customer_id AS STRING))), 10) AS bucket
FROM sales.customers
;;
-- model: HLL++ functions reference (HLL_COUNT.INIT, MERGE_PARTIAL, EXTRACT)
-- reads: analytics_123456
WITH daily AS (
  SELECT event_date, HLL_COUNT.INIT(user_pseudo_id, 14) AS sketch
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  GROUP BY event_date
)
SELECT
  HLL_COUNT.EXTRACT(HLL_COUNT.MERGE_PARTIAL(sketch)) AS monthly_users,
  HLL_COUNT.MERGE(sketch) AS monthly_users_again
FROM daily
;;
-- model: JSON functions reference (JSON_EXTRACT_STRING_ARRAY, LAX_INT64, JSON_STRIP_NULLS, JSON_ARRAY_APPEND, JSON_REMOVE)
-- reads: staging
SELECT
  JSON_VALUE(payload, '$.order.id') AS order_id,
  LAX_INT64(payload.order.quantity) AS quantity,
  JSON_EXTRACT_STRING_ARRAY(payload, '$.order.tags') AS tags,
  JSON_STRIP_NULLS(payload) AS compact,
  JSON_ARRAY_APPEND(payload, '$.order.tags', 'seen') AS tagged,
  JSON_REMOVE(payload, '$.customer.email') AS without_email,
  BOOL(payload.order.paid) AS paid,
  STRING(payload.order.currency) AS currency
FROM staging.webhook_events
;;
-- model: JSON functions reference, JSON_OBJECT from arrays and JSON_ARRAY, and SAFE.JSON_VALUE
-- reads: sales
SELECT
  TO_JSON_STRING(JSON_OBJECT(['id', 'amount'], [CAST(order_id AS STRING), CAST(amount AS STRING)])) AS payload,
  JSON_ARRAY(order_id, status, amount) AS tuple,
  JSON_SET(JSON '{}', '$.status', status) AS status_doc
FROM sales.orders
LIMIT 10
;;
-- model: mathematical functions reference (ROUND with a rounding mode, TRUNC, LOG, POW, IEEE_DIVIDE, COSINE_DISTANCE)
-- reads: sales
SELECT
  ROUND(amount, 1) AS r1,
  ROUND(NUMERIC '2.25', 1, 'ROUND_HALF_EVEN') AS bankers,
  TRUNC(amount) AS t,
  CEIL(amount) AS c,
  LOG(amount + 1, 10) AS log10,
  POW(1.05, 12) AS yearly_growth,
  IEEE_DIVIDE(amount, 0) AS inf,
  GREATEST(amount, 0) AS non_negative,
  RAND() < 0.1 AS sampled
FROM sales.orders
;;
-- model: navigation functions reference (NTH_VALUE, LEAD with a default, PERCENTILE_DISC)
-- reads: sales
SELECT
  customer_id,
  order_date,
  NTH_VALUE(amount, 2) OVER w AS second_order_amount,
  LEAD(order_date, 1, DATE '9999-12-31') OVER w AS next_order,
  PERCENTILE_DISC(amount, 0.9) OVER (PARTITION BY customer_id) AS p90
FROM sales.orders
WINDOW w AS (PARTITION BY customer_id ORDER BY order_date ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
;;
-- model: numbering functions reference (CUME_DIST, ROW_NUMBER without ORDER BY, NTILE)
-- reads: sales
SELECT
  product_id,
  revenue,
  CUME_DIST() OVER (ORDER BY revenue) AS cume,
  NTILE(10) OVER (ORDER BY revenue DESC) AS decile,
  ROW_NUMBER() OVER () AS arbitrary_id
FROM (SELECT product_id, SUM(amount) AS revenue FROM sales.order_lines GROUP BY product_id)
;;
-- model: net functions reference (NET.HOST, NET.REG_DOMAIN, NET.PUBLIC_SUFFIX, NET.IP_FROM_STRING, NET.IPV4_TO_INT64)
-- reads: staging
SELECT
  NET.HOST(referrer) AS host,
  NET.REG_DOMAIN(referrer) AS domain,
  NET.PUBLIC_SUFFIX(referrer) AS suffix,
  NET.SAFE_IP_FROM_STRING(client_ip) AS ip_bytes,
  NET.IP_TO_STRING(NET.IP_TRUNC(NET.SAFE_IP_FROM_STRING(client_ip), 24)) AS subnet,
  NET.IPV4_TO_INT64(NET.SAFE_IP_FROM_STRING(client_ip)) AS ip_int
FROM staging.access_logs
;;
-- model: range functions reference (RANGE, RANGE_CONTAINS, RANGE_OVERLAPS, RANGE_INTERSECT, GENERATE_RANGE_ARRAY)
-- reads: sales
SELECT
  s.subscription_id,
  RANGE_CONTAINS(s.active_period, CURRENT_DATE()) AS active_today,
  RANGE_OVERLAPS(s.active_period, RANGE(DATE '2024-01-01', DATE '2024-04-01')) AS active_in_q1,
  RANGE_INTERSECT(s.active_period, RANGE(DATE '2024-01-01', DATE '2024-04-01')) AS q1_part,
  RANGE_START(s.active_period) AS starts,
  GENERATE_RANGE_ARRAY(RANGE(DATE '2024-01-01', DATE '2024-01-05'), INTERVAL 1 DAY) AS days
FROM sales.subscriptions AS s
;;
-- model: search functions reference (SEARCH on a table with a search index, SEARCH of a column)
-- reads: staging
SELECT ts, service, message
FROM staging.app_logs
WHERE SEARCH(staging.app_logs, '`timeout` error', analyzer => 'LOG_ANALYZER')
  AND SEARCH(message, 'db01')
;;
-- model: search functions reference, SEARCH with a table alias and VECTOR_SEARCH's sibling CONTAINS_SUBSTR
-- reads: staging
SELECT l.*
FROM staging.app_logs AS l
WHERE SEARCH(l, 'checkout-service') OR CONTAINS_SUBSTR(l, 'payment declined')
;;
-- model: security functions reference (SESSION_USER in a filter)
-- reads: sales
SELECT region, SUM(amount) AS revenue
FROM sales.orders
WHERE region IN (SELECT region FROM sales.sales_reps WHERE email = SESSION_USER())
GROUP BY region
;;
-- model: statistical aggregate functions reference (CORR, COVAR_SAMP, STDDEV, VAR_POP)
-- reads: sales
SELECT
  region,
  CORR(discount, amount) AS discount_amount_corr,
  COVAR_SAMP(discount, amount) AS covar,
  STDDEV(amount) AS sd,
  STDDEV_POP(amount) AS sd_pop,
  VAR_POP(amount) AS var_pop,
  VARIANCE(amount) AS var_samp
FROM sales.orders
GROUP BY region
;;
-- model: string functions reference (SPLIT with OFFSET, INITCAP, LPAD, NORMALIZE_AND_CASEFOLD, SOUNDEX, EDIT_DISTANCE)
-- reads: sales
SELECT
  INITCAP(LOWER(name)) AS display_name,
  SPLIT(email, '@')[SAFE_OFFSET(1)] AS email_domain,
  LPAD(CAST(customer_id AS STRING), 10, '0') AS padded_id,
  NORMALIZE_AND_CASEFOLD(name, NFKC) AS folded,
  SOUNDEX(name) AS sx,
  EDIT_DISTANCE(name, 'Jon Smith') AS dist,
  REGEXP_CONTAINS(email, r'@(gmail|yahoo)\.com$') AS webmail,
  FORMAT('%s <%s>', name, email) AS recipient,
  STARTS_WITH(phone, '+49') AS german_phone,
  TRANSLATE(phone, '()- ', '') AS digits,
  REPEAT('*', 3) AS mask,
  CODE_POINTS_TO_STRING([72, 105]) AS hi
FROM sales.customers
;;
-- model: string functions reference, REGEXP_EXTRACT_ALL, REGEXP_INSTR, SUBSTR and INSTR
-- reads: staging
SELECT
  REGEXP_EXTRACT_ALL(message, r'order_id=(\d+)') AS order_ids,
  REGEXP_INSTR(message, r'ERROR') AS error_pos,
  SUBSTR(message, 1, 80) AS head,
  INSTR(message, ':', 1, 2) AS second_colon,
  BYTE_LENGTH(message) AS bytes,
  CHAR_LENGTH(message) AS chars,
  REVERSE(service) AS r,
  ASCII(service) AS first_code,
  UNICODE(service) AS first_cp
FROM staging.app_logs
;;
-- model: time series functions reference (GAP_FILL with LOCF and LINEAR, on a subquery)
-- reads: staging
SELECT *
FROM GAP_FILL(
  (SELECT device_id, reading_ts, temperature FROM staging.sensor_readings WHERE reading_ts >= '2024-03-01'),
  ts_column => 'reading_ts',
  bucket_width => INTERVAL 1 MINUTE,
  partitioning_columns => ['device_id'],
  value_columns => [('temperature', 'linear')]
)
ORDER BY device_id, reading_ts
;;
-- model: time series functions reference, TIMESTAMP_BUCKET with an origin and DATETIME_BUCKET
-- reads: staging
SELECT
  TIMESTAMP_BUCKET(reading_ts, INTERVAL 15 MINUTE, TIMESTAMP '2024-01-01 00:00:00') AS bucket,
  DATETIME_BUCKET(DATETIME(reading_ts), INTERVAL 1 HOUR) AS hour_bucket,
  AVG(temperature) AS avg_temp
FROM staging.sensor_readings
GROUP BY 1, 2
;;
-- model: UUID functions reference (GENERATE_UUID in an INSERT of audit rows)
-- reads: staging
-- writes
INSERT INTO staging.load_audit (run_id, loaded_at, row_count)
SELECT GENERATE_UUID(), CURRENT_TIMESTAMP(), COUNT(*) FROM staging.orders_raw
;;
-- model: window function calls reference (RANGE BETWEEN INTERVAL on a date, EXCLUDE-free frames, COUNT DISTINCT via ARRAY_AGG)
-- reads: sales
SELECT
  order_date,
  SUM(amount) OVER (ORDER BY UNIX_DATE(order_date) RANGE BETWEEN 6 PRECEDING AND CURRENT ROW) AS revenue_7d,
  AVG(amount) OVER (PARTITION BY region ORDER BY order_date ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS centered_avg,
  COUNT(*) OVER (PARTITION BY region) AS region_orders,
  MAX(amount) OVER (PARTITION BY region ORDER BY order_date ROWS UNBOUNDED PRECEDING) AS running_max
FROM sales.orders
;;
-- model: KLL quantiles reference (KLL_QUANTILES.INIT_INT64, MERGE_POINT_INT64, EXTRACT_INT64)
-- reads: sales
SELECT
  KLL_QUANTILES.MERGE_POINT_INT64(sketch, 0.5) AS median_order_cents
FROM (
  SELECT KLL_QUANTILES.INIT_INT64(CAST(amount * 100 AS INT64), 1000) AS sketch
  FROM sales.orders
  GROUP BY region
)
;;
-- model: differential privacy reference (SELECT WITH DIFFERENTIAL_PRIVACY)
-- reads: sales
SELECT WITH DIFFERENTIAL_PRIVACY
  OPTIONS (epsilon = 10, delta = .01, max_groups_contributed = 2, privacy_unit_column = customer_id)
  region,
  AVG(amount, contribution_bounds_per_group => (0, 500)) AS avg_amount,
  COUNT(*, contribution_bounds_per_group => (0, 100)) AS n
FROM sales.orders
GROUP BY region
;;
-- model: aggregation threshold analysis rules (SELECT WITH AGGREGATION_THRESHOLD)
-- reads: sales
SELECT WITH AGGREGATION_THRESHOLD OPTIONS (threshold = 50, privacy_unit_column = customer_id)
  region, COUNT(DISTINCT customer_id) AS customers
FROM sales.orders
GROUP BY region
;;
-- model: ML.GENERATE_EMBEDDING with a model of an allowed dataset and a query (text embeddings tutorial)
-- reads: ml, sales
SELECT product_id, ml_generate_embedding_result AS embedding
FROM ML.GENERATE_EMBEDDING(
  MODEL ml.text_embedding,
  (SELECT product_id, description AS content FROM sales.products),
  STRUCT(TRUE AS flatten_json_output, 'RETRIEVAL_DOCUMENT' AS task_type)
)
;;
-- model: ML.GENERATE_TEXT over a remote model of an allowed dataset (generate text tutorial)
-- reads: ml, sales
SELECT ml_generate_text_llm_result AS summary, review_id
FROM ML.GENERATE_TEXT(
  MODEL ml.gemini,
  (SELECT review_id, CONCAT('Summarize this review: ', review_text) AS prompt FROM sales.reviews LIMIT 100),
  STRUCT(0.2 AS temperature, 256 AS max_output_tokens, TRUE AS flatten_json_output)
)
;;
-- model: ML preprocessing functions reference (ML.STANDARD_SCALER, ML.QUANTILE_BUCKETIZE, ML.FEATURE_CROSS as analytic functions)
-- reads: sales
SELECT
  customer_id,
  ML.STANDARD_SCALER(lifetime_value) OVER () AS ltv_scaled,
  ML.QUANTILE_BUCKETIZE(lifetime_value, 4) OVER () AS ltv_bucket,
  ML.MIN_MAX_SCALER(orders) OVER () AS orders_scaled,
  ML.BUCKETIZE(age, [18, 30, 50, 65]) AS age_bucket,
  ML.FEATURE_CROSS(STRUCT(country, segment)) AS country_segment
FROM sales.customer_features
;;
-- model: ML.TRANSFORM and ML.ADVANCED_WEIGHTS (feature engineering tutorial)
-- reads: ml, sales
SELECT * FROM ML.TRANSFORM(MODEL ml.churn_bt, TABLE sales.customer_features)
;;
-- model: ML.EXPLAIN_PREDICT with approximate feature contributions on a query
-- reads: ml, sales
SELECT customer_id, predicted_churned, top_feature_attributions
FROM ML.EXPLAIN_PREDICT(MODEL ml.churn_bt,
  (SELECT * FROM sales.customer_features WHERE signup_date >= '2024-01-01'),
  STRUCT(3 AS top_k_features, TRUE AS approx_feature_contrib))
;;
-- model: ML.ROC_CURVE with thresholds and ML.MODEL_INFO-style ML.TRIAL_INFO of a tuned model
-- reads: ml
SELECT * FROM ML.TRIAL_INFO(MODEL ml.churn_tuned)
ORDER BY trial_id
;;
-- model: AI.GENERATE_TABLE with a remote model of an allowed dataset (generative AI reference)
-- reads: ml, sales
SELECT *
FROM AI.GENERATE_TABLE(
  MODEL ml.gemini,
  (SELECT CONCAT('Extract the product and sentiment from: ', review_text) AS prompt FROM sales.reviews LIMIT 10),
  STRUCT('product STRING, sentiment STRING' AS output_schema)
)
;;
-- model: AI.GENERATE_DOUBLE with a connection, refused without --connections (generative AI reference)
-- reads: sales
-- refused: connection
SELECT review_id,
  AI.GENERATE_DOUBLE(('Rate from 1 to 5: ', review_text), connection_id => 'us.vertex_conn', endpoint => 'gemini-2.5-flash').result AS score
FROM sales.reviews
;;
-- model: AI.FORECAST with id columns and a confidence level (TimesFM reference)
-- reads: sales
SELECT *
FROM AI.FORECAST(
  (SELECT order_date, region, SUM(amount) AS revenue FROM sales.orders GROUP BY 1, 2),
  data_col => 'revenue',
  timestamp_col => 'order_date',
  id_cols => ['region'],
  horizon => 30,
  confidence_level => 0.9
)
;;
-- model: vector search reference, VECTOR_SEARCH with a top_k and options JSON over a column subset
-- reads: sales
SELECT query.product_id AS query_product, base.product_id AS similar_product, distance
FROM VECTOR_SEARCH(
  TABLE sales.product_embeddings, 'embedding',
  (SELECT product_id, embedding FROM sales.product_embeddings WHERE product_id IN (1, 2, 3)),
  'embedding',
  top_k => 5,
  distance_type => 'COSINE',
  options => '{"fraction_lists_to_search": 0.01}'
)
;;
-- model: vector functions reference (COSINE_DISTANCE, EUCLIDEAN_DISTANCE, DOT_PRODUCT, ML.NORMALIZER)
-- reads: sales
SELECT
  a.product_id,
  b.product_id AS other,
  COSINE_DISTANCE(a.embedding, b.embedding) AS cos_d,
  EUCLIDEAN_DISTANCE(a.embedding, b.embedding) AS l2,
  ML.DISTANCE(a.embedding, b.embedding, 'MANHATTAN') AS l1
FROM sales.product_embeddings AS a
JOIN sales.product_embeddings AS b ON a.product_id < b.product_id
WHERE a.category = b.category
;;
-- model: conditional expressions reference (IF, IFNULL, NULLIFZERO, ZEROIFNULL, CASE, COALESCE)
-- reads: sales
SELECT
  order_id,
  IF(amount > 100, 'large', 'small') AS size,
  IFNULL(discount, 0) AS discount,
  NULLIFZERO(quantity) AS qty_or_null,
  ZEROIFNULL(refund) AS refund,
  CASE WHEN status IN ('returned', 'refunded') THEN -amount ELSE amount END AS signed_amount
FROM sales.orders
;;
-- model: utility functions reference (GENERATE_UUID, ERROR in a CASE, SAFE. prefix)
-- reads: staging
SELECT
  GENERATE_UUID() AS row_id,
  SAFE.PARSE_DATE('%Y%m%d', raw_date) AS d,
  CASE WHEN raw_amount IS NULL THEN ERROR(CONCAT('missing amount for ', order_ref)) ELSE raw_amount END AS checked
FROM staging.orders_raw
;;
-- model: GA4 distinct item categories of an event from a FROM subquery inside a select-list subquery
-- reads: analytics_123456
SELECT
  event_date,
  ecommerce.transaction_id,
  (SELECT STRING_AGG(c, ', ' ORDER BY c) FROM (SELECT DISTINCT item_category AS c FROM e.items)) AS categories
FROM `analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131' AND event_name = 'purchase'
;;
-- model: GA4 events with a deduplicated parameter list (FROM subquery over e.event_params in an EXISTS)
-- reads: analytics_123456
SELECT event_name, COUNT(*) AS events
FROM `analytics_123456.events_20240115` AS e
WHERE EXISTS (
  SELECT 1 FROM (SELECT key, COUNT(*) AS n FROM e.event_params GROUP BY key) AS k
  WHERE k.n > 1
)
GROUP BY event_name
;;
-- ===== Issue 35 (corpus): pipe syntax reference examples, BigQuery ML
-- statements and the rest of the DDL reference. =====
-- model: pipe syntax reference, AGGREGATE ... GROUP AND ORDER BY with a direction
-- reads: sales
FROM sales.orders
|> AGGREGATE SUM(amount) AS revenue, COUNT(*) AS orders GROUP AND ORDER BY region DESC
;;
-- model: pipe syntax reference, WITH before a pipe query
-- reads: sales
WITH recent AS (SELECT * FROM sales.orders WHERE order_date >= '2024-01-01')
FROM recent
|> WHERE status = 'completed'
|> AGGREGATE COUNT(*) AS n GROUP BY customer_id
|> WHERE n > 3
;;
-- model: pipe syntax reference, EXTEND with a window and WINDOW named in the operator
-- reads: sales
FROM sales.orders
|> EXTEND SUM(amount) OVER (PARTITION BY customer_id ORDER BY order_date) AS running_total
|> EXTEND ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY order_date DESC) AS recency
|> WHERE recency <= 3
|> SELECT customer_id, order_date, amount, running_total
;;
-- model: pipe syntax reference, AGGREGATE with ROLLUP and GROUPING
-- reads: sales
FROM sales.orders
|> AGGREGATE SUM(amount) AS revenue, GROUPING(region) AS is_total GROUP BY ROLLUP(region)
|> ORDER BY is_total, revenue DESC
;;
-- model: pipe syntax reference, LIMIT with OFFSET after ORDER BY, and DISTINCT
-- reads: sales
FROM sales.customers
|> SELECT DISTINCT country
|> ORDER BY country
|> LIMIT 10 OFFSET 10
;;
-- model: pipe syntax reference, WITH as a pipe operator (|> WITH) and a JOIN back to its alias
-- reads: sales
FROM sales.orders
|> AGGREGATE SUM(amount) AS total GROUP BY customer_id
|> AS totals
|> JOIN sales.customers AS c ON c.customer_id = totals.customer_id
|> SELECT c.email, totals.total
;;
-- model: pipe syntax reference, RENAME and DROP before a UNION ALL BY NAME
-- reads: sales
FROM sales.orders_eu
|> RENAME order_total AS amount
|> DROP internal_note
|> UNION ALL BY NAME (FROM sales.orders_us |> DROP internal_note)
;;
-- model: pipe syntax reference, ASSERT operator as an inline data check
-- reads: sales
FROM sales.orders
|> WHERE order_date = '2024-01-15'
|> ASSERT amount >= 0, 'negative amount'
|> AGGREGATE SUM(amount) AS revenue
;;
-- model: pipe syntax reference, a LEFT JOIN to a subquery with pipe syntax inside
-- reads: sales
FROM sales.customers AS c
|> LEFT JOIN (FROM sales.orders |> AGGREGATE MAX(order_date) AS last_order GROUP BY customer_id) AS o
     ON o.customer_id = c.customer_id
|> WHERE o.last_order IS NULL OR o.last_order < DATE_SUB(CURRENT_DATE(), INTERVAL 1 YEAR)
|> SELECT c.customer_id, c.email
;;
-- model: pipe syntax reference, SET to replace a column and a MATCH_RECOGNIZE-free sessionisation with LAG
-- reads: staging
FROM staging.page_hits
|> SET url = LOWER(url)
|> EXTEND IF(TIMESTAMP_DIFF(ts, LAG(ts) OVER (PARTITION BY user_id ORDER BY ts), MINUTE) > 30, 1, 0) AS new_session
|> EXTEND SUM(new_session) OVER (PARTITION BY user_id ORDER BY ts) AS session_n
|> AGGREGATE COUNT(*) AS hits, MIN(ts) AS started GROUP BY user_id, session_n
;;
-- model: pipe syntax reference, CALL of a table-valued function with a MODEL and named arguments
-- reads: ml, sales
FROM sales.customer_features
|> WHERE signup_date >= '2024-01-01'
|> CALL ML.PREDICT(MODEL ml.churn_bt, STRUCT(0.6 AS threshold))
|> AGGREGATE COUNTIF(predicted_churned) AS at_risk
;;
-- model: pipe syntax reference, WINDOW function in SELECT and a final ORDER BY on an alias
-- reads: analytics_123456
FROM `analytics_123456.events_*`
|> WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
|> AGGREGATE COUNT(DISTINCT user_pseudo_id) AS users GROUP BY event_date
|> SELECT event_date, users, AVG(users) OVER (ORDER BY event_date ROWS 6 PRECEDING) AS users_7d
|> ORDER BY event_date
;;
-- model: MATCH_RECOGNIZE reference, a V-shaped price pattern
-- reads: finance
SELECT *
FROM finance.stock_prices
MATCH_RECOGNIZE (
  PARTITION BY ticker
  ORDER BY trade_date
  MEASURES FIRST(down.trade_date) AS drop_start, LAST(up.trade_date) AS recovery_end
  PATTERN (down+ up+)
  DEFINE
    down AS close < PREV(close),
    up AS close > PREV(close)
)
;;
-- model: BigQuery ML, CREATE MODEL DNN classifier with hyperparameter tuning (hyperparameter tuning docs)
-- reads: ml, sales
-- writes
CREATE OR REPLACE MODEL ml.churn_tuned
OPTIONS (
  model_type = 'DNN_CLASSIFIER',
  input_label_cols = ['churned'],
  hidden_units = HPARAM_CANDIDATES([STRUCT([64, 32]), STRUCT([128, 64, 32])]),
  learn_rate = HPARAM_RANGE(0.0001, 0.01),
  num_trials = 10,
  max_parallel_trials = 2,
  data_split_method = 'RANDOM',
  data_split_eval_fraction = 0.2
) AS
SELECT * EXCEPT (customer_id) FROM sales.customer_features
;;
-- model: BigQuery ML, CREATE MODEL random forest with class weights
-- reads: ml, sales
-- writes
CREATE MODEL IF NOT EXISTS ml.fraud_rf
OPTIONS (model_type = 'RANDOM_FOREST_CLASSIFIER', input_label_cols = ['is_fraud'], num_parallel_tree = 50, auto_class_weights = TRUE, enable_global_explain = TRUE)
AS SELECT amount, country, channel, is_fraud FROM sales.transactions
;;
-- model: BigQuery ML, CREATE MODEL PCA and autoencoder for dimensionality reduction
-- reads: ml, sales
-- writes
CREATE OR REPLACE MODEL ml.customer_pca
OPTIONS (model_type = 'PCA', num_principal_components = 8, scale_features = TRUE)
AS SELECT * EXCEPT (customer_id) FROM sales.customer_features
;;
-- model: BigQuery ML, ML.GENERATE_EMBEDDING-free anomaly detection with an autoencoder and ML.DETECT_ANOMALIES
-- reads: ml, sales
SELECT *
FROM ML.DETECT_ANOMALIES(MODEL ml.tx_autoencoder, STRUCT(0.02 AS contamination), TABLE sales.transactions)
WHERE is_anomaly
;;
-- model: BigQuery ML, CREATE MODEL ARIMA_PLUS_XREG with holidays and time series ids
-- reads: ml, sales
-- writes
CREATE OR REPLACE MODEL ml.revenue_xreg
OPTIONS (
  model_type = 'ARIMA_PLUS_XREG',
  time_series_timestamp_col = 'order_date',
  time_series_data_col = 'revenue',
  time_series_id_col = 'region',
  holiday_region = 'US',
  auto_arima = TRUE
) AS
SELECT order_date, region, SUM(amount) AS revenue, AVG(discount) AS avg_discount
FROM sales.orders
GROUP BY order_date, region
;;
-- model: BigQuery ML, ML.FORECAST with xreg data and ML.EXPLAIN_FORECAST struct options
-- reads: ml, sales
SELECT *
FROM ML.FORECAST(MODEL ml.revenue_xreg, STRUCT(14 AS horizon, 0.9 AS confidence_level),
  (SELECT order_date, region, discount AS avg_discount FROM sales.planned_discounts))
;;
-- model: BigQuery ML, contribution analysis model and ML.GET_INSIGHTS
-- reads: ml, sales
-- writes
CREATE OR REPLACE MODEL ml.revenue_drivers
OPTIONS (model_type = 'CONTRIBUTION_ANALYSIS', contribution_metric = 'SUM(revenue)', dimension_id_cols = ['region', 'channel'], is_test_col = 'is_test', min_apriori_support = 0.05)
AS SELECT region, channel, revenue, order_date >= '2024-01-01' AS is_test FROM sales.daily_revenue_by_dim
;;
-- model: BigQuery ML, ML.GET_INSIGHTS of a contribution analysis model
-- reads: ml
SELECT contributors, metric_test, metric_control, difference, relative_difference
FROM ML.GET_INSIGHTS(MODEL ml.revenue_drivers)
ORDER BY unexpected_difference DESC
;;
-- model: BigQuery ML, AutoML tables model with a budget
-- reads: ml, sales
-- writes
CREATE MODEL ml.ltv_automl
OPTIONS (model_type = 'AUTOML_REGRESSOR', input_label_cols = ['ltv_12m'], budget_hours = 1.0)
AS SELECT * EXCEPT (customer_id) FROM sales.customer_features
;;
-- model: BigQuery ML, ALTER MODEL SET OPTIONS with labels and description
-- reads: ml
-- writes
ALTER MODEL IF EXISTS ml.churn_tuned SET OPTIONS (description = 'Churn DNN, tuned', labels = [('stage', 'prod')])
;;
-- model: BigQuery ML, ML.EVALUATE of a forecasting model with perform_aggregation
-- reads: ml
SELECT * FROM ML.EVALUATE(MODEL ml.revenue_xreg, STRUCT(TRUE AS perform_aggregation, 14 AS horizon))
;;
-- model: BigQuery ML, remote model over a Vertex AI LLM endpoint with a connection, refused without --connections
-- reads: ml
-- writes
-- refused: connection
CREATE OR REPLACE MODEL ml.gemini_flash
REMOTE WITH CONNECTION `p.us.vertex_conn`
OPTIONS (endpoint = 'gemini-2.5-flash')
;;
-- model: BigQuery ML, imported ONNX model from Cloud Storage (imported models docs)
-- reads: ml
-- writes
-- refused: external-files
CREATE OR REPLACE MODEL ml.sklearn_churn
OPTIONS (model_type = 'ONNX', model_path = 'gs://acme-models/churn/model.onnx')
;;
-- model: CREATE TABLE with a customer-managed encryption key (CMEK docs), key outside --kms-keys
-- reads: finance
-- writes
-- refused: kms-key
CREATE TABLE finance.ledger_cmek (entry_id STRING, amount NUMERIC)
OPTIONS (kms_key_name = 'projects/p/locations/us/keyRings/finance/cryptoKeys/ledger')
;;
-- model: CREATE FUNCTION LANGUAGE python with a connection (Python UDF docs), refused without --connections
-- reads: staging
-- writes
-- refused: connection
CREATE FUNCTION staging.clean_phone(x STRING) RETURNS STRING
LANGUAGE python
WITH CONNECTION `p.us.python_conn`
OPTIONS (runtime_version = 'python-3.11', entry_point = 'clean')
AS r'''
import re
def clean(x):
  return re.sub(r'[^0-9+]', '', x or '')
'''
;;
-- model: CREATE TABLE FUNCTION returning a parameterised GA4 event slice (table functions docs)
-- reads: analytics_123456, staging
-- writes
CREATE OR REPLACE TABLE FUNCTION staging.ga4_events_between(start_day STRING, end_day STRING)
RETURNS TABLE<event_name STRING, user_pseudo_id STRING, page_location STRING>
AS
SELECT
  event_name,
  user_pseudo_id,
  (SELECT value.string_value FROM e.event_params WHERE key = 'page_location') AS page_location
FROM `p.analytics_123456.events_*` AS e
WHERE _TABLE_SUFFIX BETWEEN start_day AND end_day
;;
-- model: calling that table function with query parameters
-- reads: staging
SELECT page_location, COUNT(*) AS views
FROM staging.ga4_events_between(@start_day, @end_day)
WHERE event_name = 'page_view'
GROUP BY page_location
;;
-- model: CREATE TEMP FUNCTION with a JavaScript library-free UDF and OPTIONS, then a query
-- reads: staging
CREATE TEMP FUNCTION decode_uri(s STRING)
RETURNS STRING
LANGUAGE js
AS r"""
  try { return decodeURIComponent(s); } catch (e) { return s; }
""";
SELECT decode_uri(url) AS url, COUNT(*) AS hits FROM staging.page_hits GROUP BY 1
;;
-- model: CREATE EXTERNAL TABLE over Google Sheets (external data sources docs)
-- reads: staging
-- writes
-- refused: external-files
CREATE OR REPLACE EXTERNAL TABLE staging.budget_sheet
OPTIONS (format = 'GOOGLE_SHEETS', uris = ['https://docs.google.com/spreadsheets/d/1AbC/edit'], skip_leading_rows = 1, sheet_range = 'Budget!A1:F200')
;;
-- model: LOAD DATA into a partition with OVERWRITE PARTITIONS (LOAD DATA docs)
-- reads: staging
-- writes
-- refused: external-files
LOAD DATA OVERWRITE staging.orders_raw
PARTITIONS (_PARTITIONTIME = TIMESTAMP '2024-01-15')
FROM FILES (format = 'AVRO', uris = ['gs://acme-landing/orders/2024-01-15/*.avro'])
;;
-- model: EXPORT DATA with a WITH clause below the --export-gcs prefix (EXPORT DATA docs)
-- reads: analytics_123456
-- writes
EXPORT DATA OPTIONS (uri = 'gs://acme-exports/mcp/ga4/sessions-*.parquet', format = 'PARQUET', overwrite = TRUE)
AS WITH s AS (
  SELECT user_pseudo_id, (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS session_id
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX = '20240115'
)
SELECT DISTINCT * FROM s
;;
-- model: table clone of a GA4 daily table into a sandbox dataset
-- reads: analytics_123456, staging
-- writes
CREATE TABLE staging.events_20240115_clone CLONE analytics_123456.events_20240115
;;
-- model: materialized view over GA4 daily events (materialized views docs, partition-aligned)
-- reads: staging
-- writes
CREATE MATERIALIZED VIEW staging.mv_events_by_day
PARTITION BY event_day
AS SELECT event_day, event_name, COUNT(*) AS events
FROM staging.ga4_events_flat
GROUP BY event_day, event_name
;;
-- model: BQ.REFRESH_MATERIALIZED_VIEW-free ALTER MATERIALIZED VIEW that turns refresh off
-- reads: staging
-- writes
ALTER MATERIALIZED VIEW staging.mv_events_by_day SET OPTIONS (enable_refresh = FALSE)
;;
-- model: INFORMATION_SCHEMA.TABLE_OPTIONS of the dbt staging dataset, labels only
-- reads: staging
SELECT table_name, option_value AS labels
FROM `p.staging`.INFORMATION_SCHEMA.TABLE_OPTIONS
WHERE option_name = 'labels'
;;
-- model: INFORMATION_SCHEMA.PARTITIONS of the GA4 flat table, stale partitions (partition management docs)
-- reads: staging
SELECT partition_id, total_rows, last_modified_time
FROM staging.INFORMATION_SCHEMA.PARTITIONS
WHERE table_name = 'ga4_events_flat' AND last_modified_time < TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 30 DAY)
ORDER BY partition_id
;;
-- model: INFORMATION_SCHEMA.ROUTINE_OPTIONS and PARAMETERS of a dataset
-- reads: finance
SELECT r.routine_name, p.parameter_name, p.data_type
FROM finance.INFORMATION_SCHEMA.ROUTINES AS r
JOIN finance.INFORMATION_SCHEMA.PARAMETERS AS p USING (specific_name)
ORDER BY r.routine_name, p.ordinal_position
;;
-- model: INFORMATION_SCHEMA.SEARCH_INDEXES and VECTOR_INDEXES of a dataset (index docs)
-- reads: staging
SELECT index_name, table_name, index_status, coverage_percentage
FROM staging.INFORMATION_SCHEMA.SEARCH_INDEXES
;;
-- model: INFORMATION_SCHEMA.TABLE_SNAPSHOTS of a snapshot dataset
-- reads: snapshots
SELECT table_name, base_table_name, snapshot_time
FROM snapshots.INFORMATION_SCHEMA.TABLE_SNAPSHOTS
ORDER BY snapshot_time DESC
;;
-- ===== Issue 35 (corpus): more GA4 recipes (engagement, ecommerce, app
-- streams) and dbt-bigquery's insert_overwrite MERGE and other compiled
-- shapes, modelled on dbt-adapters' insert_overwrite.sql and public GA4
-- recipe collections. =====
-- model: dbt insert_overwrite with static partitions, compiled (one MERGE on FALSE, dbt-adapters insert_overwrite.sql)
-- reads: sales, staging
-- writes
-- 1. run the merge statement
    merge into `p`.`sales`.`fct_daily` as DBT_INTERNAL_DEST
        using (
  
    select order_date, sum(amount) as revenue
    from `p`.`staging`.`stg_orders`
    where order_date in ('2024-01-14', '2024-01-15')
    group by 1
  
  ) as DBT_INTERNAL_SOURCE
        on FALSE

    when not matched by source
         and dbt_internal_dest.order_date in (
                '2024-01-14', '2024-01-15'
            ) 
        then delete

    when not matched then insert
        (`order_date`, `revenue`)
    values
        (`order_date`, `revenue`)
;
;;
-- model: dbt insert_overwrite on an ingestion-time partitioned table (time_ingestion_partitioning, _PARTITIONTIME in the source)
-- reads: staging
-- writes
merge into `p`.`staging`.`events_ingested` as DBT_INTERNAL_DEST
    using (
      select timestamp_trunc(event_ts, day) as _partitiontime, * except (event_ts), event_ts
      from `p`.`staging`.`events_raw`
      where date(event_ts) = current_date()
    ) as DBT_INTERNAL_SOURCE
    on FALSE
when not matched by source
     and timestamp_trunc(DBT_INTERNAL_DEST._PARTITIONTIME, day) in (timestamp(current_date()))
    then delete
when not matched then insert
    (`_PARTITIONTIME`, `event_id`, `payload`, `event_ts`)
values
    (`_PARTITIONTIME`, `event_id`, `payload`, `event_ts`)
;;
-- model: dbt sql_header with a temporary function before the model's create table (a script)
-- reads: staging
-- writes
-- refused: script
create temporary function clean_sku(s string) as (upper(trim(s)));

  create or replace table `p`.`staging`.`dim_products`
  OPTIONS()
  as (
    select clean_sku(sku) as sku, name from `p`.`staging`.`raw_products`
  );
;;
-- model: dbt on_schema_change append_new_columns (alter table add column on the target)
-- reads: sales
-- writes
alter table `p`.`sales`.`fct_orders` add column `channel` STRING, add column `coupon_code` STRING
;;
-- model: dbt on_schema_change sync_all_columns dropping a removed column
-- reads: sales
-- writes
alter table `p`.`sales`.`fct_orders` drop column `legacy_flag`
;;
-- model: dbt source freshness with a loaded_at_field, compiled
-- reads: staging
select
      max(_loaded_at) as max_loaded_at,
      current_timestamp() as snapshotted_at
    from `p`.`staging`.`raw_orders`
    where _loaded_at >= timestamp_sub(current_timestamp(), interval 1 day)
;;
-- model: dbt adapter table metadata through the legacy __TABLES__ (get_relation_last_modified)
-- reads: staging
select
    project_id as database, dataset_id as schema, table_id as identifier,
    timestamp_millis(last_modified_time) as last_modified,
    current_timestamp() as snapshotted_at
from `p`.`staging`.`__TABLES__`
where table_id in ('raw_orders', 'raw_customers')
;;
-- model: dbt_utils.deduplicate, compiled for BigQuery (array_agg ... limit 1 offset(0))
-- reads: staging
select unique.*
from (
    select
        array_agg (
            original
            order by _loaded_at desc
            limit 1
        )[offset(0)] unique
    from `p`.`staging`.`raw_customers` original
    group by customer_id
)
;;
-- model: dbt_utils.get_column_values introspective query, compiled
-- reads: staging
select
    payment_method as value
from `p`.`staging`.`stg_payments`
group by payment_method
order by count(*) desc
limit 50
;;
-- model: dbt_expectations expect_column_values_to_be_between, compiled
-- reads: sales
with grouped_expression as (
    select
        amount >= 0 and amount <= 100000 as expression
    from `p`.`sales`.`fct_orders`
),
validation_errors as (
    select *
    from grouped_expression
    where not(expression = true)
)
select *
from validation_errors
;;
-- model: dbt store_failures test table, compiled (create or replace table of failing rows)
-- reads: dbt_test__audit, sales
-- writes
create or replace table `p`.`dbt_test__audit`.`not_null_fct_orders_customer_id`
  OPTIONS()
  as (
    select * from `p`.`sales`.`fct_orders` where customer_id is null
  );
;;
-- model: dbt snapshot with the check strategy, compiled staging query (check_cols changes)
-- reads: sales, snapshots
select
    'update' as dbt_change_type,
    source_data.*,
    snapshotted_data.dbt_scd_id
from (select *, customer_id as dbt_unique_key from `p`.`sales`.`customers`) as source_data
join (
    select *, customer_id as dbt_unique_key
    from `p`.`snapshots`.`customers_snapshot`
    where dbt_valid_to is null
) as snapshotted_data
  on snapshotted_data.dbt_unique_key = source_data.dbt_unique_key
where (
    snapshotted_data.email != source_data.email
    or (snapshotted_data.email is null) != (source_data.email is null)
    or snapshotted_data.country != source_data.country
)
;;
-- model: GA4 outbound link clicks (click event with outbound = 'true' and link_url)
-- reads: analytics_123456
SELECT
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'link_domain') AS link_domain,
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'link_url') AS link_url,
  COUNT(*) AS clicks
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 28 DAY))
                        AND FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
  AND event_name = 'click'
  AND (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'outbound') = 'true'
GROUP BY 1, 2
ORDER BY clicks DESC
;;
-- model: GA4 file downloads by extension and file name
-- reads: analytics_123456
SELECT
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'file_extension') AS file_extension,
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'file_name') AS file_name,
  COUNT(DISTINCT user_pseudo_id) AS users,
  COUNT(*) AS downloads
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131' AND event_name = 'file_download'
GROUP BY 1, 2
;;
-- model: GA4 video engagement milestones (video_start, video_progress with video_percent, video_complete)
-- reads: analytics_123456
SELECT
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'video_title') AS video_title,
  COUNTIF(event_name = 'video_start') AS starts,
  COUNTIF(event_name = 'video_progress' AND (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'video_percent') = 50) AS reached_50,
  COUNTIF(event_name = 'video_complete') AS completes,
  SAFE_DIVIDE(COUNTIF(event_name = 'video_complete'), COUNTIF(event_name = 'video_start')) AS completion_rate
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  AND event_name IN ('video_start', 'video_progress', 'video_complete')
GROUP BY video_title
;;
-- model: GA4 items with LEFT JOIN UNNEST to keep events without items
-- reads: analytics_123456
SELECT
  e.event_name,
  COUNT(*) AS rows_after_join,
  COUNTIF(i.item_id IS NULL) AS events_without_items
FROM `analytics_123456.events_20240115` AS e
LEFT JOIN UNNEST(e.items) AS i
GROUP BY e.event_name
;;
-- model: GA4 form interactions: form_start and form_submit per form_id
-- reads: analytics_123456
SELECT
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'form_id') AS form_id,
  COUNTIF(event_name = 'form_start') AS starts,
  COUNTIF(event_name = 'form_submit') AS submits
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131' AND event_name IN ('form_start', 'form_submit')
GROUP BY form_id
HAVING starts > 0
;;
-- model: GA4 UTM parameters parsed from page_location of session_start events (REGEXP_EXTRACT)
-- reads: analytics_123456
SELECT
  REGEXP_EXTRACT(page_location, r'[?&]utm_source=([^&#]+)') AS utm_source,
  REGEXP_EXTRACT(page_location, r'[?&]utm_medium=([^&#]+)') AS utm_medium,
  REGEXP_EXTRACT(page_location, r'[?&]utm_campaign=([^&#]+)') AS utm_campaign,
  COUNTIF(REGEXP_CONTAINS(page_location, r'[?&]gclid=')) AS gclid_sessions,
  COUNT(*) AS sessions
FROM (
  SELECT (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_location') AS page_location
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131' AND event_name = 'session_start'
)
GROUP BY 1, 2, 3
;;
-- model: GA4 session duration from first and last event of each session
-- reads: analytics_123456
WITH s AS (
  SELECT
    user_pseudo_id,
    (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS session_id,
    MIN(event_timestamp) AS first_ts,
    MAX(event_timestamp) AS last_ts
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
  GROUP BY 1, 2
)
SELECT
  APPROX_QUANTILES((last_ts - first_ts) / 1e6, 4) AS duration_seconds_quartiles,
  AVG((last_ts - first_ts) / 1e6) AS avg_duration_seconds
FROM s
;;
-- model: GA4 app stream screen views (platform, app_info, firebase_screen_class)
-- reads: analytics_123456
SELECT
  platform,
  app_info.version,
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'firebase_screen_class') AS screen_class,
  COUNT(*) AS screen_views
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240107'
  AND event_name = 'screen_view'
  AND platform IN ('ANDROID', 'IOS')
GROUP BY 1, 2, 3
ORDER BY screen_views DESC
;;
-- model: GA4 promotions: view_promotion and select_promotion from the items array
-- reads: analytics_123456
SELECT
  i.promotion_name,
  i.creative_name,
  COUNTIF(e.event_name = 'view_promotion') AS views,
  COUNTIF(e.event_name = 'select_promotion') AS clicks
FROM `analytics_123456.events_*` AS e, UNNEST(e.items) AS i
WHERE e._TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  AND e.event_name IN ('view_promotion', 'select_promotion')
GROUP BY 1, 2
;;
-- model: GA4 refunds netted against purchases by transaction
-- reads: analytics_123456
SELECT
  ecommerce.transaction_id,
  SUM(IF(event_name = 'purchase', ecommerce.purchase_revenue, 0)) AS revenue,
  SUM(IF(event_name = 'refund', ecommerce.refund_value, 0)) AS refunded,
  SUM(IF(event_name = 'purchase', ecommerce.purchase_revenue, 0)) - SUM(IF(event_name = 'refund', ecommerce.refund_value, 0)) AS net
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240229' AND event_name IN ('purchase', 'refund')
GROUP BY 1
;;
-- model: GA4 page referrer domains of entrances (entrances = 1)
-- reads: analytics_123456
SELECT
  NET.REG_DOMAIN((SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page_referrer')) AS referrer_domain,
  COUNT(*) AS entrances
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
  AND event_name = 'page_view'
  AND (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'entrances') = 1
GROUP BY 1
ORDER BY entrances DESC
;;
-- model: GA4 user_id coverage by day (logged-in share)
-- reads: analytics_123456
SELECT
  event_date,
  COUNT(DISTINCT user_pseudo_id) AS devices,
  COUNT(DISTINCT user_id) AS logged_in_users,
  SAFE_DIVIDE(COUNTIF(user_id IS NOT NULL), COUNT(*)) AS events_with_user_id
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY event_date
ORDER BY event_date
;;
-- model: GA4 checkout funnel per session with COUNT(DISTINCT IF(...)) and a session key
-- reads: analytics_123456
WITH ev AS (
  SELECT
    event_name,
    CONCAT(user_pseudo_id, '-', CAST((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS STRING)) AS session_key
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
)
SELECT
  COUNT(DISTINCT IF(event_name = 'view_item', session_key, NULL)) AS view_item,
  COUNT(DISTINCT IF(event_name = 'add_to_cart', session_key, NULL)) AS add_to_cart,
  COUNT(DISTINCT IF(event_name = 'begin_checkout', session_key, NULL)) AS begin_checkout,
  COUNT(DISTINCT IF(event_name = 'add_shipping_info', session_key, NULL)) AS add_shipping_info,
  COUNT(DISTINCT IF(event_name = 'add_payment_info', session_key, NULL)) AS add_payment_info,
  COUNT(DISTINCT IF(event_name = 'purchase', session_key, NULL)) AS purchase
FROM ev
;;
-- model: GA4 first-click attribution by user_first_touch traffic_source (user-scoped acquisition)
-- reads: analytics_123456
SELECT
  traffic_source.source AS first_user_source,
  traffic_source.medium AS first_user_medium,
  COUNT(DISTINCT user_pseudo_id) AS users,
  SUM(ecommerce.purchase_revenue) AS revenue
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240331'
GROUP BY 1, 2
ORDER BY revenue DESC NULLS LAST
;;
-- model: GA4 event parameter with a double value (float_value vs double_value, value of a purchase)
-- reads: analytics_123456
SELECT
  event_name,
  SUM(COALESCE(
    (SELECT value.double_value FROM UNNEST(event_params) WHERE key = 'value'),
    (SELECT CAST(value.int_value AS FLOAT64) FROM UNNEST(event_params) WHERE key = 'value'),
    (SELECT value.float_value FROM UNNEST(event_params) WHERE key = 'value'))) AS total_value
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240131'
GROUP BY event_name
;;
-- model: GA4 last 7 complete days through DATE_SUB in the suffix filter and session_start counts by hour (local time)
-- reads: analytics_123456
SELECT
  EXTRACT(HOUR FROM TIMESTAMP_MICROS(event_timestamp) AT TIME ZONE 'Europe/Amsterdam') AS local_hour,
  COUNT(*) AS sessions
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 7 DAY))
                        AND FORMAT_DATE('%Y%m%d', DATE_SUB(CURRENT_DATE(), INTERVAL 1 DAY))
  AND event_name = 'session_start'
GROUP BY local_hour
ORDER BY local_hour
;;
-- model: GA4 BigQuery ML purchase propensity training set (features per user from the export)
-- reads: analytics_123456, ml
-- writes
CREATE OR REPLACE MODEL ml.ga4_propensity
OPTIONS (model_type = 'LOGISTIC_REG', input_label_cols = ['will_purchase'], auto_class_weights = TRUE)
AS
SELECT
  COUNTIF(event_name = 'page_view') AS page_views,
  COUNTIF(event_name = 'add_to_cart') AS carts,
  COUNT(DISTINCT event_date) AS active_days,
  ANY_VALUE(device.category) AS device_category,
  ANY_VALUE(geo.country) AS country,
  LOGICAL_OR(event_name = 'purchase') AS will_purchase
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240331'
GROUP BY user_pseudo_id
;;
-- model: GA4 predictions from the propensity model with ML.PREDICT over a subquery of the export
-- reads: analytics_123456, ml
SELECT user_pseudo_id, predicted_will_purchase_probs
FROM ML.PREDICT(MODEL ml.ga4_propensity, (
  SELECT
    user_pseudo_id,
    COUNTIF(event_name = 'page_view') AS page_views,
    COUNTIF(event_name = 'add_to_cart') AS carts,
    COUNT(DISTINCT event_date) AS active_days,
    ANY_VALUE(device.category) AS device_category,
    ANY_VALUE(geo.country) AS country
  FROM `analytics_123456.events_*`
  WHERE _TABLE_SUFFIX BETWEEN '20240401' AND '20240407'
  GROUP BY user_pseudo_id
))
;;
-- model: GA4 DELETE of a user's events for a deletion request (user_pseudo_id across daily tables)
-- reads: analytics_123456
-- writes
DELETE FROM `p.analytics_123456.events_20240115`
WHERE user_pseudo_id = '1234567890.1700000000'
;;
-- model: GA4 UPDATE to scrub an email-looking page_location parameter in place (nested repeated field)
-- reads: analytics_123456
-- writes
UPDATE `p.analytics_123456.events_20240115` AS e
SET event_params = ARRAY(
  SELECT AS STRUCT
    ep.key,
    STRUCT(
      IF(ep.key = 'page_location', REGEXP_REPLACE(ep.value.string_value, r'email=[^&]+', 'email=REDACTED'), ep.value.string_value) AS string_value,
      ep.value.int_value, ep.value.float_value, ep.value.double_value) AS value
  FROM e.event_params AS ep
)
WHERE EXISTS (SELECT 1 FROM e.event_params WHERE key = 'page_location' AND value.string_value LIKE '%email=%')
;;
-- ===== Issue 35 (corpus): the rest of BigQuery ML's table functions, change
-- history, data quality, and DDL/DML variants of the references. =====
-- model: change history reference, CHANGES over a table with change history enabled
-- reads: sales
SELECT order_id, status, _CHANGE_TYPE AS change_type, _CHANGE_TIMESTAMP AS changed_at
FROM CHANGES(TABLE sales.orders, TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 DAY), TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 10 MINUTE))
WHERE _CHANGE_TYPE != 'INSERT'
;;
-- model: BigQuery ML, ML.DESCRIBE_DATA profile of a table
-- reads: sales
SELECT * FROM ML.DESCRIBE_DATA(TABLE sales.customer_features, STRUCT(10 AS num_quantiles, 5 AS top_k))
;;
-- model: BigQuery ML, ML.VALIDATE_DATA_DRIFT between two days of serving data
-- reads: sales
SELECT *
FROM ML.VALIDATE_DATA_DRIFT(
  (SELECT * FROM sales.customer_features WHERE snapshot_date = '2024-01-14'),
  (SELECT * FROM sales.customer_features WHERE snapshot_date = '2024-01-15'),
  STRUCT(0.3 AS categorical_default_threshold)
)
;;
-- model: BigQuery ML, ML.VALIDATE_DATA_SKEW of serving data against a model's training data
-- reads: ml, sales
SELECT * FROM ML.VALIDATE_DATA_SKEW(MODEL ml.churn_bt, TABLE sales.customer_features)
;;
-- model: BigQuery ML, ML.FEATURES_AT_TIME point-in-time lookup of a feature table
-- reads: sales
SELECT *
FROM ML.FEATURES_AT_TIME(TABLE sales.customer_feature_history, time => TIMESTAMP '2024-01-01 00:00:00 UTC', num_rows => 1, ignore_feature_nulls => TRUE)
;;
-- model: BigQuery ML, ML.ENTITY_FEATURES_AT_TIME with an entity-time table
-- reads: sales
SELECT *
FROM ML.ENTITY_FEATURES_AT_TIME(TABLE sales.customer_feature_history, TABLE sales.label_times, num_rows => 1)
;;
-- model: BigQuery ML, ML.PRINCIPAL_COMPONENTS and ML.PRINCIPAL_COMPONENT_INFO of a PCA model
-- reads: ml
SELECT * FROM ML.PRINCIPAL_COMPONENT_INFO(MODEL ml.customer_pca)
ORDER BY principal_component_id
;;
-- model: BigQuery ML, ML.RECONSTRUCTION_LOSS of an autoencoder on new rows
-- reads: ml, sales
SELECT * FROM ML.RECONSTRUCTION_LOSS(MODEL ml.tx_autoencoder, (SELECT * EXCEPT (tx_id) FROM sales.transactions WHERE tx_date = CURRENT_DATE()))
;;
-- model: BigQuery ML, ML.HOLIDAY_INFO of an ARIMA_PLUS model with holidays
-- reads: ml
SELECT * FROM ML.HOLIDAY_INFO(MODEL ml.revenue_xreg)
;;
-- model: BigQuery ML, ML.ADVANCED_WEIGHTS of a linear model with standard errors
-- reads: ml
SELECT processed_input, weight, standard_error, p_value FROM ML.ADVANCED_WEIGHTS(MODEL ml.ltv_linear, STRUCT(TRUE AS standardize))
;;
-- model: BigQuery ML, ML.FEATURE_INFO of a model's inputs
-- reads: ml
SELECT input, min, max, mean, stddev, category_count, null_count FROM ML.FEATURE_INFO(MODEL ml.churn_bt)
;;
-- model: BigQuery ML, ML.TRANSLATE with a Cloud Translation remote model of an allowed dataset
-- reads: ml, sales
SELECT * FROM ML.TRANSLATE(
  MODEL ml.translate,
  (SELECT review_id, review_text AS text_content FROM sales.reviews WHERE language != 'en'),
  STRUCT('translate_text' AS translate_mode, 'en' AS target_language_code)
)
;;
-- model: BigQuery ML, ML.UNDERSTAND_TEXT sentiment with a Natural Language remote model
-- reads: ml, sales
SELECT review_id, ml_understand_text_result
FROM ML.UNDERSTAND_TEXT(MODEL ml.nlp, (SELECT review_id, review_text AS text_content FROM sales.reviews), STRUCT('analyze_sentiment' AS nlu_option))
;;
-- model: BigQuery ML, ML.ANNOTATE_IMAGE over an object table of an allowed dataset
-- reads: ml, staging
SELECT uri, ml_annotate_image_result
FROM ML.ANNOTATE_IMAGE(MODEL ml.vision, TABLE staging.product_images, STRUCT(['label_detection'] AS vision_features))
;;
-- model: generative AI reference, AI.GENERATE_TEXT table function with a remote model
-- reads: ml, sales
SELECT review_id, result
FROM AI.GENERATE_TEXT(MODEL ml.gemini, (SELECT review_id, CONCAT('Classify the tone: ', review_text) AS prompt FROM sales.reviews), STRUCT(64 AS max_output_tokens))
;;
-- model: generative AI reference, AI.GENERATE_EMBEDDING table function with a remote embedding model
-- reads: ml, sales
SELECT product_id, embedding
FROM AI.GENERATE_EMBEDDING(MODEL ml.text_embedding, (SELECT product_id, description AS content FROM sales.products))
;;
-- model: generative AI reference, AI.CLASSIFY with a connection, refused without --connections
-- reads: sales
-- refused: connection
SELECT review_id, AI.CLASSIFY(review_text, categories => ['shipping', 'quality', 'price'], connection_id => 'us.vertex_conn') AS topic
FROM sales.reviews
;;
-- model: geography reference, ST_REGIONSTATS over an Earth Engine raster (reaches outside BigQuery)
-- reads: sales
-- refused: reach-out
SELECT store_id, ST_REGIONSTATS(ST_BUFFER(ST_GEOGPOINT(lon, lat), 1000), 'ee://COPERNICUS/S2_SR_HARMONIZED', 'B4').mean AS red
FROM sales.stores
;;
-- model: DLP deterministic encryption with DLP_KEY_CHAIN of a KMS key (DLP encryption docs), key outside --kms-keys
-- reads: sales
-- refused: kms-key
SELECT
  customer_id,
  DLP_DETERMINISTIC_ENCRYPT(
    DLP_KEY_CHAIN('gcp-kms://projects/p/locations/us/keyRings/dlp/cryptoKeys/k', b'\x0a\x24wrapped'),
    email, 'EMAIL', '') AS email_token
FROM sales.customers
;;
-- model: DDL reference, CREATE SCHEMA with a default collation, rounding mode and labels
-- reads: finance_eu
-- writes
CREATE SCHEMA IF NOT EXISTS finance_eu
DEFAULT COLLATE 'und:ci'
OPTIONS (location = 'EU', default_rounding_mode = 'ROUND_HALF_EVEN', labels = [('cost_center', 'fin')], is_case_insensitive = TRUE)
;;
-- model: DDL reference, CREATE TEMP TABLE AS as one statement (session-scoped scratch)
-- reads: sales
-- writes
CREATE TEMP TABLE order_ids AS SELECT DISTINCT order_id FROM sales.orders WHERE order_date = CURRENT_DATE()
;;
-- model: DDL reference, CREATE OR REPLACE TABLE ... COPY of another dataset's table
-- reads: sales, staging
-- writes
CREATE OR REPLACE TABLE staging.orders_copy COPY sales.orders
;;
-- model: DDL reference, ALTER TABLE ALTER COLUMN DROP DEFAULT and RENAME COLUMN IF EXISTS
-- reads: sales
-- writes
ALTER TABLE sales.orders ALTER COLUMN status DROP DEFAULT, RENAME COLUMN IF EXISTS channel TO sales_channel
;;
-- model: DDL reference, ALTER TABLE SET OPTIONS expiration and require_partition_filter
-- reads: staging
-- writes
ALTER TABLE staging.raw_clicks SET OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 30 DAY), require_partition_filter = FALSE)
;;
-- model: DDL reference, DROP EXTERNAL TABLE and DROP SCHEMA RESTRICT
-- reads: staging
-- writes
DROP EXTERNAL TABLE IF EXISTS staging.budget_sheet
;;
-- model: DDL reference, CREATE AGGREGATE FUNCTION in JavaScript (JavaScript UDAF docs)
-- reads: finance
-- writes
CREATE OR REPLACE AGGREGATE FUNCTION finance.sum_positive(x FLOAT64)
RETURNS FLOAT64
LANGUAGE js
AS r'''
  export function initialState() { return {sum: 0}; }
  export function aggregate(state, x) { if (x > 0) state.sum += x; }
  export function merge(state, partial) { state.sum += partial.sum; }
  export function finalize(state) { return state.sum; }
'''
;;
-- model: calling a persistent UDAF of an allowed dataset
-- reads: finance
SELECT account_id, finance.sum_positive(amount) AS credits FROM finance.ledger GROUP BY account_id
;;
-- model: remote function over Cloud Run (remote functions docs), refused without --connections
-- reads: staging
-- writes
-- refused: connection
CREATE FUNCTION staging.geocode(address STRING) RETURNS JSON
REMOTE WITH CONNECTION `p.us.cloud_run_conn`
OPTIONS (endpoint = 'https://geocoder-abc-uc.a.run.app', max_batching_rows = 50)
;;
-- model: EXPORT DATA to Amazon S3 through a connection (BigQuery Omni docs)
-- reads: sales
-- writes
-- refused: export-data
EXPORT DATA WITH CONNECTION `aws-us-east-1.s3_conn`
OPTIONS (uri = 's3://acme-bucket/orders/*', format = 'JSON')
AS SELECT * FROM sales.orders_aws
;;
-- model: LOAD DATA INTO a temporary table (LOAD DATA docs), files outside BigQuery
-- reads:
-- writes
-- refused: external-files
LOAD DATA INTO TEMP TABLE tmp_orders (order_id INT64, amount NUMERIC)
FROM FILES (format = 'CSV', uris = ['gs://acme-landing/orders.csv'], skip_leading_rows = 1)
;;
-- model: system procedure to cancel a job (BQ.JOBS.CANCEL)
-- reads:
-- refused: call
CALL BQ.JOBS.CANCEL('p.US.bquxjob_123abc')
;;
-- model: scripting docs, SET @@dataset_id then an unqualified query (a script)
-- reads: sales
-- refused: script
SET @@dataset_id = 'sales';
SELECT COUNT(*) FROM orders
;;
-- model: DML reference, MERGE with WHEN NOT MATCHED BY SOURCE THEN UPDATE (soft delete)
-- reads: sales, staging
-- writes
MERGE sales.customers AS T
USING staging.customers_full AS S
ON T.customer_id = S.customer_id
WHEN MATCHED AND T.email != S.email THEN UPDATE SET email = S.email, updated_at = CURRENT_TIMESTAMP()
WHEN NOT MATCHED BY TARGET THEN INSERT (customer_id, email, updated_at) VALUES (S.customer_id, S.email, CURRENT_TIMESTAMP())
WHEN NOT MATCHED BY SOURCE AND T.deleted_at IS NULL THEN UPDATE SET deleted_at = CURRENT_TIMESTAMP()
;;
-- model: DML reference, UPDATE ... FROM with a join and an alias on the target, correlated condition in WHERE
-- reads: sales, staging
-- writes
UPDATE sales.inventory AS i
SET quantity = i.quantity + n.quantity, supply_constrained = FALSE
FROM staging.new_arrivals AS n
WHERE i.product = n.product
  AND NOT EXISTS (SELECT 1 FROM i.holds AS h WHERE h.until > CURRENT_DATE())
;;
-- model: DML reference, UPDATE with the target's implicit alias in a SET subquery (Inventory.product)
-- reads: sales, staging
-- writes
UPDATE sales.inventory
SET quantity = quantity + (SELECT quantity FROM staging.new_arrivals WHERE inventory.product = new_arrivals.product),
    supply_constrained = FALSE
WHERE product IN (SELECT product FROM staging.new_arrivals)
;;
-- model: DML reference, INSERT ... SELECT from a time-travelled table (restore rows)
-- reads: sales
-- writes
INSERT INTO sales.orders
SELECT * FROM sales.orders FOR SYSTEM_TIME AS OF TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 HOUR)
WHERE order_id NOT IN (SELECT order_id FROM sales.orders)
;;
-- model: query reference, recursive CTE walking a bill of materials with a depth limit
-- reads: sales
WITH RECURSIVE bom AS (
  SELECT parent_sku, child_sku, quantity, 1 AS depth FROM sales.bill_of_materials WHERE parent_sku = 'BIKE-1'
  UNION ALL
  SELECT b.parent_sku, c.child_sku, b.quantity * c.quantity, b.depth + 1
  FROM bom AS b
  JOIN sales.bill_of_materials AS c ON c.parent_sku = b.child_sku
  WHERE b.depth < 10
)
SELECT child_sku, SUM(quantity) AS total_quantity FROM bom GROUP BY child_sku
;;
-- model: query reference, a self-join with FOR SYSTEM_TIME AS OF on one side (day-over-day diff)
-- reads: sales
SELECT cur.product_id, cur.price, prev.price AS price_yesterday
FROM sales.products AS cur
JOIN sales.products FOR SYSTEM_TIME AS OF TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 DAY) AS prev
  USING (product_id)
WHERE cur.price != prev.price
;;
-- model: query reference, a named window based on another named window
-- reads: sales
SELECT
  order_date,
  SUM(amount) OVER w_cum AS cumulative,
  AVG(amount) OVER w_7 AS avg_7
FROM sales.orders
WINDOW
  w AS (PARTITION BY region ORDER BY order_date),
  w_cum AS (w ROWS UNBOUNDED PRECEDING),
  w_7 AS (w ROWS BETWEEN 6 PRECEDING AND CURRENT ROW)
;;
-- model: query reference, UNNEST of an array of arrays through ARRAY<STRUCT> and a correlated subquery over two arrays
-- reads: sales
SELECT
  o.order_id,
  (SELECT COUNT(*) FROM o.items AS i, i.discounts AS d WHERE d.code LIKE 'VIP%') AS vip_discounts
FROM sales.orders AS o
;;
-- model: BigQuery ML, CREATE MODEL registered in the Vertex AI Model Registry (writes outside BigQuery)
-- reads: ml, sales
-- writes
-- refused: reach-out
CREATE OR REPLACE MODEL ml.churn_vertex
OPTIONS (model_type = 'BOOSTED_TREE_CLASSIFIER', input_label_cols = ['churned'], model_registry = 'VERTEX_AI', vertex_ai_model_version_aliases = ['prod'])
AS SELECT * EXCEPT (customer_id) FROM sales.customer_features
;;
-- ===== Issue 35 (corpus): spellings analysts and tools emit (comments,
-- parameters, quoting, literals that hold SQL), and procedures. =====
-- model: hash comments and block comments between clauses (BigQuery accepts # comments)
-- reads: sales
SELECT /* the KPI */ region, # one row per region
  SUM(amount) AS revenue -- euros
FROM sales.orders /* partitioned by order_date */
WHERE order_date >= '2024-01-01' # this year
GROUP BY region
;;
-- model: string literals holding SQL text (a query log table searched for a table name)
-- reads: staging
SELECT query_text
FROM staging.query_log
WHERE query_text LIKE '%FROM secret.payroll%'
   OR REGEXP_CONTAINS(query_text, r'(?i)delete\s+from\s+`?finance\.')
   OR query_text = """SELECT * FROM hr.salaries -- copied"""
;;
-- model: query parameters for dates, an IN UNNEST array parameter and a table suffix parameter
-- reads: analytics_123456
SELECT event_name, COUNT(*) AS n
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN @start_suffix AND @end_suffix
  AND event_name IN UNNEST(@event_names)
GROUP BY event_name
;;
-- model: DELETE with IN UNNEST of an array parameter (batch erasure)
-- reads: sales
-- writes
DELETE FROM sales.customers WHERE customer_id IN UNNEST(@customer_ids)
;;
-- model: hyphenated project ID, unquoted, from another project of the organisation
-- reads: acme-data-prod.sales
SELECT order_id, amount FROM acme-data-prod.sales.orders WHERE order_date = CURRENT_DATE()
;;
-- model: wildcard on a project-qualified table with a longer prefix and the suffix in the select list
-- reads: analytics_123456
SELECT _TABLE_SUFFIX AS day, COUNT(*) AS events
FROM `p.analytics_123456.events_2024*`
WHERE _TABLE_SUFFIX BETWEEN '0101' AND '0131'
GROUP BY day
;;
-- model: column names quoted with backticks, including a reserved word and a space-free unicode name
-- reads: staging
SELECT `from`, `select`, `group`, `größe`, `order`.`by` AS ob
FROM staging.odd_columns AS `order`
;;
-- model: table alias that equals a dataset name, used for struct fields only
-- reads: sales
SELECT finance.amount, finance.currency
FROM sales.payments AS finance
WHERE finance.amount > 0
;;
-- model: SELECT AS VALUE STRUCT to produce a value table
-- reads: sales
SELECT AS VALUE STRUCT(order_id AS id, amount AS value) FROM sales.orders LIMIT 10
;;
-- model: QUALIFY without WHERE or GROUP BY (allowed since 2023)
-- reads: sales
SELECT * FROM sales.orders QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY order_date DESC) = 1
;;
-- model: a date spine from UNNEST(GENERATE_DATE_ARRAY) left-joined to orders with the date in USING-free ON
-- reads: sales
SELECT d AS day, COALESCE(SUM(o.amount), 0) AS revenue
FROM UNNEST(GENERATE_DATE_ARRAY('2024-01-01', '2024-01-31')) AS d
LEFT JOIN sales.orders AS o ON o.order_date = d
GROUP BY day
ORDER BY day
;;
-- model: CREATE VIEW whose query is parenthesised
-- reads: sales
-- writes
CREATE OR REPLACE VIEW sales.v_open_orders AS (
  SELECT order_id, customer_id, amount FROM sales.orders WHERE status = 'open'
)
;;
-- model: a view over an allowed dataset's view and a table of another allowed dataset
-- reads: sales, finance
SELECT v.order_id, f.invoice_id
FROM sales.v_open_orders AS v
JOIN finance.invoices AS f USING (order_id)
;;
-- model: legacy __TABLES__ joined to INFORMATION_SCHEMA.TABLES for size and type
-- reads: staging
SELECT t.table_name, t.table_type, m.row_count, ROUND(m.size_bytes / POW(1024, 3), 2) AS size_gb
FROM staging.INFORMATION_SCHEMA.TABLES AS t
JOIN staging.__TABLES__ AS m ON m.table_id = t.table_name
ORDER BY size_gb DESC
;;
-- model: project-qualified dataset INFORMATION_SCHEMA.COLUMNS of a public dataset
-- reads: bigquery-public-data.thelook_ecommerce
SELECT table_name, column_name, data_type
FROM `bigquery-public-data.thelook_ecommerce`.INFORMATION_SCHEMA.COLUMNS
WHERE table_name = 'orders'
;;
-- model: procedure with DECLARE, SET and two DML statements (allowed body)
-- reads: staging, sales
-- writes
CREATE OR REPLACE PROCEDURE staging.load_day(day DATE)
BEGIN
  DECLARE loaded INT64 DEFAULT 0;
  DELETE FROM sales.daily_summary WHERE order_date = day;
  INSERT INTO sales.daily_summary (order_date, orders, revenue)
  SELECT order_date, COUNT(*), SUM(amount) FROM staging.orders_raw WHERE order_date = day GROUP BY order_date;
  SET loaded = (SELECT COUNT(*) FROM sales.daily_summary WHERE order_date = day);
END
;;
-- model: procedure that sets @@time_zone only (allowed: changes no name)
-- reads: sales
-- writes
CREATE OR REPLACE PROCEDURE sales.report_local()
BEGIN
  SET @@time_zone = 'Europe/Berlin';
  SELECT DATE(CURRENT_TIMESTAMP()) AS local_day, COUNT(*) FROM sales.orders WHERE order_date = CURRENT_DATE();
END
;;
-- model: procedure that sets @@dataset_id (refused: names would mean other tables)
-- reads: sales
-- writes
-- refused: procedure-scripting
CREATE OR REPLACE PROCEDURE sales.purge()
BEGIN
  SET @@dataset_id = 'sales';
  DELETE FROM orders WHERE order_date < '2020-01-01';
END
;;
-- model: temporary function whose body is a subquery over an allowed table, then a query
-- reads: sales
CREATE TEMP FUNCTION region_of(cid INT64) AS ((SELECT region FROM sales.customers WHERE customer_id = cid));
SELECT order_id, region_of(customer_id) AS region FROM sales.orders LIMIT 100
;;
-- model: query with a leading WITH and a final UNION ALL of two CTEs (report stitching)
-- reads: sales, finance
WITH web AS (
  SELECT 'web' AS channel, SUM(amount) AS revenue FROM sales.orders WHERE channel = 'web'
), invoiced AS (
  SELECT 'invoice' AS channel, SUM(amount) AS revenue FROM finance.invoices
)
SELECT * FROM web
UNION ALL
SELECT * FROM invoiced
ORDER BY revenue DESC
;;
-- model: public dataset with a wildcard table and _TABLE_SUFFIX (NOAA GSOD by year)
-- reads: bigquery-public-data.noaa_gsod
SELECT _TABLE_SUFFIX AS year, AVG(temp) AS avg_temp
FROM `bigquery-public-data.noaa_gsod.gsod*`
WHERE _TABLE_SUFFIX BETWEEN '2015' AND '2023' AND stn = '725030'
GROUP BY year
ORDER BY year
;;
-- model: public Google Trends dataset, top terms of the latest week
-- reads: bigquery-public-data.google_trends
SELECT term, rank
FROM `bigquery-public-data.google_trends.top_terms`
WHERE refresh_date = (SELECT MAX(refresh_date) FROM `bigquery-public-data.google_trends.top_terms`)
GROUP BY term, rank
ORDER BY rank
;;
-- model: public crypto dataset, daily Bitcoin transaction counts
-- reads: bigquery-public-data.crypto_bitcoin
SELECT DATE(block_timestamp) AS day, COUNT(*) AS transactions
FROM `bigquery-public-data.crypto_bitcoin.transactions`
WHERE block_timestamp_month = '2024-01-01'
GROUP BY day
ORDER BY day
;;
-- model: GitHub public dataset, commits mentioning a keyword (repeated field UNNEST)
-- reads: bigquery-public-data.github_repos
SELECT repo_name, COUNT(*) AS commits
FROM `bigquery-public-data.github_repos.sample_commits`, UNNEST(repo_name) AS repo_name
WHERE REGEXP_CONTAINS(message, r'(?i)bigquery')
GROUP BY repo_name
ORDER BY commits DESC
LIMIT 20
;;
-- model: public and own data in one MERGE (reference data refresh from a public dataset)
-- reads: staging, bigquery-public-data.utility_us
-- writes
MERGE staging.country_codes AS T
USING (SELECT country_name, alpha_2_code FROM `bigquery-public-data.utility_us.country_code_iso`) AS S
ON T.code = S.alpha_2_code
WHEN MATCHED THEN UPDATE SET name = S.country_name
WHEN NOT MATCHED THEN INSERT (code, name) VALUES (S.alpha_2_code, S.country_name)
;;
-- model: Looker-generated SQL with a derived table CTE and quoted lower-case aliases
-- reads: sales
WITH order_facts AS (SELECT customer_id, COUNT(*) AS lifetime_orders FROM sales.orders GROUP BY 1)
SELECT
    customers.country  AS customers_country,
    COUNT(DISTINCT customers.customer_id) AS customers_count,
    AVG(order_facts.lifetime_orders) AS order_facts_average_lifetime_orders
FROM sales.customers  AS customers
LEFT JOIN order_facts ON customers.customer_id = order_facts.customer_id
GROUP BY
    1
ORDER BY
    2 DESC
LIMIT 500
;;
-- model: Looker Studio custom query with date range parameters (@DS_START_DATE, @DS_END_DATE)
-- reads: analytics_123456
SELECT PARSE_DATE('%Y%m%d', event_date) AS date, COUNT(DISTINCT user_pseudo_id) AS users
FROM `p.analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN @DS_START_DATE AND @DS_END_DATE
GROUP BY date
;;
-- model: Metabase/Tableau style generated query with fully quoted identifiers and a subselect alias
-- reads: sales
SELECT `source`.`region` AS `region`, SUM(`source`.`amount`) AS `sum`
FROM (SELECT `sales`.`orders`.`region` AS `region`, `sales`.`orders`.`amount` AS `amount` FROM `sales`.`orders`) AS `source`
GROUP BY `source`.`region`
ORDER BY `source`.`region` ASC
;;
-- ===== Issue 35 (corpus): administration statements and the remaining
-- DDL options. =====
-- model: reservations DDL, CREATE RESERVATION (workload management docs), a kind the reader does not check
-- reads:
-- writes
-- refused: statement-kind
-- plan: CREATE_RESERVATION
CREATE RESERVATION `admin-project.region-us.prod`
OPTIONS (slot_capacity = 100, edition = 'ENTERPRISE')
;;
-- model: reservations DDL, CREATE ASSIGNMENT of a project to a reservation
-- reads:
-- writes
-- refused: statement-kind
-- plan: CREATE_ASSIGNMENT
CREATE ASSIGNMENT `admin-project.region-us.prod.analytics`
OPTIONS (assignee = 'projects/p', job_type = 'QUERY')
;;
-- model: ALTER PROJECT SET OPTIONS for the default time zone (project-level configuration docs)
-- reads:
-- writes
-- refused: statement-kind
-- plan: ALTER_PROJECT
ALTER PROJECT `p` SET OPTIONS (`region-us.default_time_zone` = 'Europe/Berlin')
;;
-- model: ALTER SCHEMA SET OPTIONS with a default KMS key outside --kms-keys (CMEK docs)
-- reads: finance
-- writes
-- refused: kms-key
ALTER SCHEMA finance SET OPTIONS (default_kms_key_name = 'projects/p/locations/us/keyRings/finance/cryptoKeys/default')
;;
-- model: EXPORT MODEL outside the --export-gcs prefix (BigQuery ML export docs)
-- reads: ml
-- writes
-- refused: export-data
EXPORT MODEL ml.churn_bt OPTIONS (uri = 'gs://acme-models/churn_bt/')
;;
-- model: CREATE EXTERNAL SCHEMA over a Spanner database (federated datasets docs)
-- reads: spanner_orders
-- writes
-- refused: statement-kind
CREATE EXTERNAL SCHEMA spanner_orders
WITH CONNECTION `p.us.spanner_conn`
OPTIONS (external_source = 'google-cloudspanner:/projects/p/instances/orders/databases/orders', location = 'us')
;;
-- model: CREATE SEARCH INDEX with column-level index options (search index docs)
-- reads: staging
-- writes
CREATE SEARCH INDEX msg_index ON staging.app_logs (message OPTIONS (index_granularity = 'COLUMN'), service)
OPTIONS (default_index_column_granularity = 'GLOBAL')
;;
-- model: CREATE ROW ACCESS POLICY that grants everything to a group (FILTER USING (TRUE))
-- reads: sales
-- writes
CREATE ROW ACCESS POLICY all_rows_admins ON sales.orders
GRANT TO ('group:sales-admins@example.com')
FILTER USING (TRUE)
;;
-- model: CREATE TABLE partitioned by DATE(_PARTITIONTIME) with clustering (DDL reference)
-- reads: staging
-- writes
CREATE TABLE staging.events_by_ingest (event_id STRING, service STRING, payload JSON)
PARTITION BY DATE(_PARTITIONTIME)
CLUSTER BY service
;;
-- model: CREATE TABLE with a column of type RANGE<TIMESTAMP> and a ROUNDING MODE numeric column
-- reads: finance
-- writes
CREATE TABLE finance.fx_rates (
  pair STRING,
  valid RANGE<TIMESTAMP>,
  rate NUMERIC(18, 8) OPTIONS (rounding_mode = 'ROUND_HALF_EVEN')
)
;;
-- model: DROP FUNCTION IF EXISTS of a UDAF and DROP TABLE FUNCTION project-qualified
-- reads: finance
-- writes
DROP FUNCTION IF EXISTS `p.finance.sum_positive`
;;
-- model: ALTER TABLE ADD COLUMN of a JSON column with a default
-- reads: staging
-- writes
ALTER TABLE staging.webhook_events ADD COLUMN IF NOT EXISTS meta JSON DEFAULT JSON '{}'
;;
-- model: TRUNCATE of a project-qualified table in backticks per part
-- reads: staging
-- writes
TRUNCATE TABLE `p`.`staging`.`events_log__dbt_tmp`
;;
-- model: INSERT with DEFAULT in VALUES and a column list in a different order
-- reads: sales
-- writes
INSERT INTO sales.orders (status, order_id, amount, order_date) VALUES (DEFAULT, 1001, 25.5, CURRENT_DATE())
;;
-- model: MERGE with a pipe query as the source
-- reads: sales, staging
-- writes
MERGE sales.daily_summary AS T
USING (FROM staging.orders_raw |> AGGREGATE COUNT(*) AS orders, SUM(amount) AS revenue GROUP BY order_date) AS S
ON T.order_date = S.order_date
WHEN MATCHED THEN UPDATE SET orders = S.orders, revenue = S.revenue
WHEN NOT MATCHED THEN INSERT ROW
;;
-- model: UPDATE with SET of several columns from a scalar subquery of another dataset
-- reads: sales, finance
-- writes
UPDATE sales.orders AS o
SET o.amount_eur = o.amount * (SELECT rate FROM finance.daily_rates AS r WHERE r.currency = o.currency AND r.day = o.order_date)
WHERE o.currency != 'EUR' AND o.order_date = CURRENT_DATE()
;;
-- model: DELETE with a correlated NOT EXISTS against another dataset (orphans)
-- reads: sales, staging
-- writes
DELETE FROM staging.stg_orders AS s
WHERE NOT EXISTS (SELECT 1 FROM sales.customers AS c WHERE c.customer_id = s.customer_id)
;;
-- model: CREATE VIEW with a correlated GA4 subquery and a pipe tail (mixed syntax in a view)
-- reads: analytics_123456, staging
-- writes
CREATE OR REPLACE VIEW staging.ga4_purchases AS
FROM `p.analytics_123456.events_*` AS e
|> WHERE event_name = 'purchase'
|> EXTEND (SELECT value.string_value FROM e.event_params WHERE key = 'transaction_id') AS transaction_id
|> SELECT PARSE_DATE('%Y%m%d', event_date) AS day, transaction_id, ecommerce.purchase_revenue AS revenue
;;
-- ===== Issue 35 (corpus): other exports and tools people query from
-- BigQuery: Cloud Billing, Search Console, Google Ads transfers, Cloud
-- Logging sinks, Firebase Crashlytics, scheduled queries, Dataform. =====
-- model: Cloud Billing export, cost per service and month with credits (billing export docs' example queries)
-- reads: billing
SELECT
  invoice.month,
  service.description AS service,
  SUM(cost) + SUM(IFNULL((SELECT SUM(c.amount) FROM UNNEST(credits) AS c), 0)) AS net_cost
FROM `p.billing.gcp_billing_export_v1_0123AB_456CDE_789EFG`
WHERE invoice.month >= '202401'
GROUP BY 1, 2
ORDER BY 1, net_cost DESC
;;
-- model: Cloud Billing export, cost by label value (UNNEST(labels))
-- reads: billing
SELECT l.value AS team, ROUND(SUM(cost), 2) AS cost
FROM `p.billing.gcp_billing_export_v1_0123AB_456CDE_789EFG`, UNNEST(labels) AS l
WHERE l.key = 'team' AND DATE(_PARTITIONTIME) >= DATE_SUB(CURRENT_DATE(), INTERVAL 30 DAY)
GROUP BY team
ORDER BY cost DESC
;;
-- model: Cloud Billing detailed export, BigQuery analysis cost per project and SKU from the resource table
-- reads: billing
SELECT project.id AS project_id, sku.description AS sku, SUM(usage.amount_in_pricing_units) AS tib, SUM(cost) AS cost
FROM `p.billing.gcp_billing_export_resource_v1_0123AB_456CDE_789EFG`
WHERE service.description = 'BigQuery' AND usage_start_time >= TIMESTAMP_TRUNC(CURRENT_TIMESTAMP(), MONTH)
GROUP BY 1, 2
;;
-- model: Search Console bulk export, top queries by clicks for a URL path (searchdata_url_impression)
-- reads: searchconsole
SELECT query, SUM(clicks) AS clicks, SUM(impressions) AS impressions, SAFE_DIVIDE(SUM(clicks), SUM(impressions)) AS ctr
FROM searchconsole.searchdata_url_impression
WHERE data_date BETWEEN DATE_SUB(CURRENT_DATE(), INTERVAL 28 DAY) AND CURRENT_DATE()
  AND url LIKE 'https://www.example.com/blog/%'
  AND NOT is_anonymized_query
GROUP BY query
ORDER BY clicks DESC
LIMIT 100
;;
-- model: Search Console bulk export, average position by site impression table
-- reads: searchconsole
SELECT data_date, SUM(sum_top_position) / SUM(impressions) + 1 AS avg_position
FROM searchconsole.searchdata_site_impression
WHERE data_date >= '2024-01-01'
GROUP BY data_date
ORDER BY data_date
;;
-- model: Google Ads data transfer, campaign performance joined to campaign names (ads_Campaign_* tables)
-- reads: google_ads
SELECT c.campaign_name, SUM(s.metrics_clicks) AS clicks, SUM(s.metrics_cost_micros) / 1e6 AS cost
FROM google_ads.ads_CampaignBasicStats_1234567890 AS s
JOIN google_ads.ads_Campaign_1234567890 AS c
  ON c.campaign_id = s.campaign_id AND c._DATA_DATE = c._LATEST_DATE
WHERE s._DATA_DATE BETWEEN '2024-01-01' AND '2024-01-31'
GROUP BY 1
ORDER BY cost DESC
;;
-- model: Cloud Logging sink, BigQuery data access audit logs per principal (cloudaudit_googleapis_com_data_access)
-- reads: audit_logs
SELECT
  protopayload_auditlog.authenticationInfo.principalEmail AS principal,
  COUNT(*) AS jobs,
  SUM(CAST(JSON_VALUE(protopayload_auditlog.metadataJson, '$.jobChange.job.jobStats.queryStats.totalBilledBytes') AS INT64)) AS billed_bytes
FROM `p.audit_logs.cloudaudit_googleapis_com_data_access`
WHERE timestamp >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 7 DAY)
  AND protopayload_auditlog.methodName = 'google.cloud.bigquery.v2.JobService.InsertJob'
GROUP BY principal
ORDER BY billed_bytes DESC
;;
-- model: Cloud Logging sink, error counts per service from a date-sharded log table (wildcard)
-- reads: app_logs
SELECT resource.labels.service_name AS service, severity, COUNT(*) AS entries
FROM `p.app_logs.run_googleapis_com_stderr_*`
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', CURRENT_DATE()) AND severity IN ('ERROR', 'CRITICAL')
GROUP BY 1, 2
;;
-- model: Firebase Crashlytics export, top crashes by issue in the last week
-- reads: firebase_crashlytics
SELECT issue_id, issue_title, COUNT(DISTINCT installation_uuid) AS affected_users, COUNT(*) AS crashes
FROM `p.firebase_crashlytics.com_example_app_ANDROID`
WHERE event_timestamp >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 7 DAY) AND is_fatal
GROUP BY 1, 2
ORDER BY affected_users DESC
LIMIT 20
;;
-- model: scheduled query with @run_date writing a daily partition through a destination-less INSERT
-- reads: sales
-- writes
INSERT INTO sales.daily_summary (order_date, orders, revenue)
SELECT @run_date, COUNT(*), SUM(amount) FROM sales.orders WHERE order_date = @run_date
;;
-- model: scheduled query using @run_time to pick yesterday's GA4 table
-- reads: analytics_123456
SELECT event_name, COUNT(*) AS n
FROM `analytics_123456.events_*`
WHERE _TABLE_SUFFIX = FORMAT_DATE('%Y%m%d', DATE_SUB(DATE(@run_time), INTERVAL 1 DAY))
GROUP BY event_name
;;
-- model: Dataform compiled table action (CREATE OR REPLACE TABLE with OPTIONS and a SELECT)
-- reads: dataform, sales
-- writes
CREATE OR REPLACE TABLE `p.dataform.customer_ltv`
PARTITION BY DATE(first_order_at)
CLUSTER BY country
OPTIONS (description = 'Customer lifetime value', labels = [('dataform', 'true')])
AS (
  SELECT c.customer_id, c.country, MIN(TIMESTAMP(o.order_date)) AS first_order_at, SUM(o.amount) AS ltv
  FROM `p.sales.customers` AS c
  JOIN `p.sales.orders` AS o USING (customer_id)
  GROUP BY 1, 2
)
;;
-- model: Dataform assertion (rows that violate a uniqueness check)
-- reads: dataform
SELECT *
FROM (
  SELECT customer_id, COUNT(1) AS index_row_count
  FROM `p.dataform.customer_ltv`
  GROUP BY customer_id
) AS data
WHERE index_row_count > 1
;;
-- model: Dataform incremental table, compiled INSERT with a WHERE on the target's max timestamp
-- reads: dataform, analytics_123456
-- writes
INSERT INTO `p.dataform.ga4_events_incremental` (event_ts, event_name, user_pseudo_id)
SELECT TIMESTAMP_MICROS(event_timestamp), event_name, user_pseudo_id
FROM `p.analytics_123456.events_*`
WHERE TIMESTAMP_MICROS(event_timestamp) > (SELECT IFNULL(MAX(event_ts), TIMESTAMP '1970-01-01') FROM `p.dataform.ga4_events_incremental`)
;;
-- model: Fivetran-style soft-deleted rows excluded and latest sync per key (_fivetran_deleted, _fivetran_synced)
-- reads: salesforce
SELECT * EXCEPT (_fivetran_deleted, _fivetran_synced)
FROM salesforce.opportunity
WHERE NOT _fivetran_deleted
QUALIFY ROW_NUMBER() OVER (PARTITION BY id ORDER BY _fivetran_synced DESC) = 1
;;
-- model: Airbyte-style raw JSON table flattened with JSON_VALUE (_airbyte_data)
-- reads: airbyte_raw
SELECT
  JSON_VALUE(_airbyte_data, '$.id') AS id,
  JSON_VALUE(_airbyte_data, '$.email') AS email,
  TIMESTAMP(JSON_VALUE(_airbyte_data, '$.updated_at')) AS updated_at,
  _airbyte_extracted_at
FROM airbyte_raw.raw_users
WHERE _airbyte_extracted_at > TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)
;;
-- model: Stripe data pipeline, monthly recurring revenue from subscription items (UNNEST of a JSON array)
-- reads: stripe
SELECT
  DATE_TRUNC(DATE(TIMESTAMP_SECONDS(s.current_period_start)), MONTH) AS month,
  SUM(CAST(JSON_VALUE(item, '$.price.unit_amount') AS INT64) * CAST(JSON_VALUE(item, '$.quantity') AS INT64)) / 100 AS mrr
FROM stripe.subscriptions AS s, UNNEST(JSON_QUERY_ARRAY(s.items, '$.data')) AS item
WHERE s.status = 'active'
GROUP BY month
;;
