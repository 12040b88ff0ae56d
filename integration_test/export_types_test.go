package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// everyTypeRows is how many rows TestExportEveryType exports: 3,000 in CI,
// enough for every NULL pattern and value shape of everyTypeQuery many
// times over, three pages of execute_sql and three Arrow batches of the
// Storage Read stream; BQMCP_EVERY_TYPE_ROWS asks for more (make bench
// runs 20,000). Issue 21 asked for 100,000, but the emulator, which all
// integration tests share, is the limit: with 100,000 rows (2 cores, 25
// Nov 2026) the test passed on its own in 4 min 13 s, with the test
// process at 12.6 GB resident, almost all of it the emulator's query
// engine; with 20,000 it took about 50 s on an idle machine and 10 min 24 s
// in a suite run on a machine shared with other builds (27 Nov 2026).
var everyTypeRows = rowsFromEnv("BQMCP_EVERY_TYPE_ROWS", 3000)

// everyTypeBatch is the rows of each Arrow batch and of each page.
const everyTypeBatch = 1000

// rowsFromEnv is the number in the environment variable name, or def.
func rowsFromEnv(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// everyTypeQuery makes everyTypeRows rows of every BigQuery type the
// emulator can produce, each column NULL in some rows: INT64 past 2^53 and
// negative, FLOAT64 with ±Infinity and fractions, NUMERIC with 27
// significant digits, BIGNUMERIC with 38 decimals, BOOL, STRING with
// newlines, commas, quotes, an empty string and non-ASCII text, BYTES that
// are not UTF-8, DATE before 1970, DATETIME, TIME and TIMESTAMP with
// microseconds (TIMESTAMP before 1970), JSON, INTERVAL, a STRUCT with a
// nested STRUCT and ARRAY (and NULL), ARRAY of INT64 (empty too), of STRING
// and of STRUCT.
//
// Not here, because the emulator (v0.6.6) cannot make them:
// GEOGRAPHY (ST_GEOGPOINT, ST_GEOGFROMTEXT and the other constructors are
// "unimplemented"), FLOAT64 NaN (NULL in every emulator answer), RANGE,
// and NUMERIC/BIGNUMERIC at the ends of their ranges (such literals fail
// its queries). A '\r' in a string is left out only because Go's CSV
// reader turns "\r\n" inside a quoted field into "\n" when reading back.
var everyTypeQuery = fmt.Sprintf(`SELECT n AS id,
  IF(MOD(n, 11) = 0, NULL, (n - 50000) * 184467440737095) AS i64,
  CASE MOD(n, 17) WHEN 0 THEN NULL WHEN 1 THEN CAST(IF(MOD(n, 2) = 0, 'inf', '-inf') AS FLOAT64) ELSE n / 7 END AS f64,
  IF(MOD(n, 19) = 0, NULL, CAST(n AS NUMERIC) * NUMERIC '1234567890123.123456789' - NUMERIC '99999999999999999') AS num,
  IF(MOD(n, 23) = 0, NULL, CAST(n AS BIGNUMERIC) / 7) AS bignum,
  IF(MOD(n, 29) = 0, NULL, MOD(n, 2) = 0) AS flag,
  CASE MOD(n, 5) WHEN 0 THEN NULL
    WHEN 1 THEN CONCAT('line ', CAST(n AS STRING), '\nnext, "quoted"')
    WHEN 2 THEN CONCAT('ünïcödé € ', CAST(n AS STRING), ' 日本語 🎉')
    WHEN 3 THEN ''
    ELSE CONCAT(' lead,trail ', CAST(n AS STRING), ' ') END AS str,
  IF(MOD(n, 31) = 0, NULL, CONCAT(b'\x00\xff', CAST(CAST(n AS STRING) AS BYTES))) AS byt,
  IF(MOD(n, 37) = 0, NULL, DATE_ADD(DATE '1900-01-01', INTERVAL n DAY)) AS d,
  IF(MOD(n, 41) = 0, NULL, DATETIME_ADD(DATETIME '1999-12-31 23:59:59.999999', INTERVAL n * 1234567 MICROSECOND)) AS dt,
  IF(MOD(n, 43) = 0, NULL, TIME_ADD(TIME '00:00:00', INTERVAL MOD(n * 863999937, 86400000000) MICROSECOND)) AS tm,
  IF(MOD(n, 47) = 0, NULL, TIMESTAMP_ADD(TIMESTAMP '1960-01-01 00:00:00.000001+00', INTERVAL n * 123456789123 MICROSECOND)) AS ts,
  IF(MOD(n, 53) = 0, NULL, PARSE_JSON(CONCAT('{"n":', CAST(n AS STRING), ',"s":"x\\"y, z","a":[1,2.5,null,true],"o":{}}'))) AS js,
  IF(MOD(n, 59) = 0, NULL, INTERVAL MOD(n, 1000) DAY) AS iv,
  IF(MOD(n, 61) = 0, NULL, STRUCT(n AS k, CONCAT('v', CAST(n AS STRING)) AS v,
    STRUCT(n * 2 AS deep, GENERATE_ARRAY(n, n + MOD(n, 3)) AS arr) AS nested,
    IF(MOD(n, 3) = 0, NULL, DATE '2024-02-29') AS day)) AS rec,
  IF(MOD(n, 5) = 0, ARRAY<INT64>[], GENERATE_ARRAY(0, MOD(n, 4))) AS ints,
  [CONCAT('x', CAST(n AS STRING)), 'y,"z"'] AS strs,
  [STRUCT(n AS k, 'a' AS v), STRUCT(0 - n AS k, CAST(NULL AS STRING) AS v)] AS recs
FROM UNNEST(GENERATE_ARRAY(1, %d)) AS n`, everyTypeRows)

// TestExportEveryType exports everyTypeQuery (everyTypeRows rows) as JSON
// Lines, CSV and Parquet and reads each file back, comparing every value
// with what execute_sql and get_query_results return for the same rows:
// a JSON Lines line is byte for byte execute_sql's row (format objects), a
// CSV cell is that value as text (NULL empty), a Parquet value read with
// Arrow means the same (an exact decimal, the same instant, the same
// bytes). Each id is in each file exactly once.
//
// The rows come through a storage front that sends BigQuery's own Arrow
// types (emulator.StorageOptions.BigQueryArrow), batches of 10,000 rows:
// the emulator's Arrow encoder fails the stream on DATETIME, panics on
// ARRAY (taking the test binary down) and sends NUMERIC and BIGNUMERIC as
// float64, so through it this query cannot be read at all. What the
// emulator's own Arrow does serve (INT64, FLOAT64, BOOL, STRING, NUMERIC
// that fits a float64, DATE, TIMESTAMP, STRUCT, NULL) is
// TestExportMatchesExecuteSQL's and TestExportParquet's.
func TestExportEveryType(t *testing.T) {
	front := startFront(t, emulator.StorageOptions{BigQueryArrow: true, BatchRows: everyTypeBatch})
	cfg := exportConfigAt(t, nil, front.Addr)
	cfg.MaxRows, cfg.MaxResultBytes = 10000, 64<<20
	// The emulator takes minutes over this query (see everyTypeRows).
	cfg.QueryTimeout, cfg.MaxQueryTimeout = 10*time.Minute, 10*time.Minute
	cs := connect(t, cfg, "")

	start := time.Now()
	want, cols := executeAllPaged(t, cs, everyTypeQuery, everyTypeBatch)
	t.Logf("execute_sql and get_query_results: %d rows in %s", len(want), time.Since(start).Round(time.Millisecond))
	if len(want) != everyTypeRows {
		t.Fatalf("execute_sql returned %d rows, want %d", len(want), everyTypeRows)
	}
	var jobID string
	for _, format := range []string{"jsonl", "csv", "parquet"} {
		t.Run(format, func(t *testing.T) {
			args := map[string]any{"sql": everyTypeQuery, "format": format}
			if jobID != "" {
				args = map[string]any{"jobId": jobID, "format": format}
			}
			start := time.Now()
			out := exportLong(t, cs, args)
			took := time.Since(start)
			t.Logf("%s: %d rows, %d bytes in %s (%.0f rows/s)", format, out.Rows, out.Bytes, took.Round(time.Millisecond), float64(out.Rows)/took.Seconds())
			if out.Rows != int64(everyTypeRows) || out.ReadAPI != "storage" || len(out.Columns) != len(cols) {
				t.Fatalf("export = %+v", out)
			}
			jobID = out.JobID
			path := filePath(t, out.URI)
			start = time.Now()
			switch format {
			case "jsonl":
				checkJSONL(t, path, want)
			case "csv":
				checkCSV(t, path, want, cols)
			case "parquet":
				checkParquet(t, path, want, cols)
			}
			t.Logf("%s read back and compared in %s", format, time.Since(start).Round(time.Millisecond))
		})
	}
}

// exportLong is exportResult with room for a long export.
func exportLong(t *testing.T, cs *mcp.ClientSession, args map[string]any) struct {
	URI     string   `json:"uri"`
	Rows    int64    `json:"rows"`
	Bytes   int64    `json:"bytes"`
	Columns []string `json:"columns"`
	JobID   string   `json:"jobId"`
	ReadAPI string   `json:"readApi"`
} {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "export_results", Arguments: args})
	if err != nil {
		t.Fatalf("export_results: %v", err)
	}
	if res.IsError {
		t.Fatalf("export_results(%v) failed: %s", args, text(res))
	}
	var out struct {
		URI     string   `json:"uri"`
		Rows    int64    `json:"rows"`
		Bytes   int64    `json:"bytes"`
		Columns []string `json:"columns"`
		JobID   string   `json:"jobId"`
		ReadAPI string   `json:"readApi"`
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// executeAllPaged reads every row of sql through execute_sql and
// get_query_results (format objects) in pages of page rows, keyed by id,
// with the column order; an id seen twice fails the test.
func executeAllPaged(t *testing.T, cs *mcp.ClientSession, sql string, page int) (map[int64]json.RawMessage, []string) {
	t.Helper()
	first := longOK[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": sql, "format": "objects", "maxRows": page})
	var cols []string
	for _, c := range first.Schema {
		cols = append(cols, c.Name)
	}
	byID := map[int64]json.RawMessage{}
	add := func(rs []json.RawMessage) {
		for _, r := range rs {
			var row struct {
				ID int64 `json:"id"`
			}
			if err := json.Unmarshal(r, &row); err != nil {
				t.Fatal(err)
			}
			if _, dup := byID[row.ID]; dup {
				t.Fatalf("execute_sql's pages hold id %d twice", row.ID)
			}
			byID[row.ID] = r
		}
	}
	add(first.Rows)
	for p := first; p.NextStartIndex > 0; {
		p = longOK[query.ExecuteOutput](t, cs, "get_query_results", map[string]any{"jobId": first.JobID, "startIndex": p.NextStartIndex, "format": "objects", "maxRows": page})
		add(p.Rows)
	}
	return byID, cols
}

// longOK is ok for a call that may take minutes.
func longOK[T any](t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s failed: %s", tool, text(res))
	}
	var out T
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// once records ids, failing on a repeat, and checks at the end that each
// of want's ids came once.
type once struct {
	t    *testing.T
	seen map[int64]bool
}

func (o *once) see(id int64) {
	if o.seen == nil {
		o.seen = map[int64]bool{}
	}
	if o.seen[id] {
		o.t.Fatalf("id %d exported twice", id)
	}
	o.seen[id] = true
}

func (o *once) all(want map[int64]json.RawMessage) {
	if len(o.seen) != len(want) {
		o.t.Fatalf("%d ids exported, want %d", len(o.seen), len(want))
	}
	for id := range want {
		if !o.seen[id] {
			o.t.Fatalf("id %d missing", id)
		}
	}
}

func checkJSONL(t *testing.T, path string, want map[int64]json.RawMessage) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ids := &once{t: t}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var row struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		ids.see(row.ID)
		if !bytes.Equal(sc.Bytes(), want[row.ID]) {
			t.Fatalf("id %d:\nexport      %s\nexecute_sql %s", row.ID, sc.Bytes(), want[row.ID])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	ids.all(want)
}

func checkCSV(t *testing.T, path string, want map[int64]json.RawMessage, cols []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	header, err := r.Read()
	if err != nil || !reflect.DeepEqual(header, cols) {
		t.Fatalf("csv header %v (%v), want %v", header, err, cols)
	}
	ids := &once{t: t}
	for {
		rec, err := r.Read()
		if err != nil {
			break
		}
		id, err := strconv.ParseInt(rec[0], 10, 64)
		if err != nil {
			t.Fatalf("csv id %q", rec[0])
		}
		ids.see(id)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(want[id], &obj); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			if w := csvCell(t, obj[c]); rec[i] != w {
				t.Fatalf("id %d column %s: csv %q, execute_sql %q", id, c, rec[i], w)
			}
		}
	}
	ids.all(want)
}

func checkParquet(t *testing.T, path string, want map[int64]json.RawMessage, cols []string) {
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fr, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{BatchSize: 8192}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	schema := rr.Schema()
	t.Logf("parquet schema: %s", schema)
	if n := len(schema.Fields()); n != len(cols) {
		t.Fatalf("parquet has %d columns, want %d", n, len(cols))
	}
	for i, c := range cols {
		if schema.Field(i).Name != c {
			t.Fatalf("parquet column %d is %s, want %s", i, schema.Field(i).Name, c)
		}
	}
	ids := &once{t: t}
	for rr.Next() {
		rec := rr.Record()
		idCol := rec.Column(0).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			id := idCol.Value(i)
			ids.see(id)
			var obj map[string]any
			dec := json.NewDecoder(bytes.NewReader(want[id]))
			dec.UseNumber()
			if err := dec.Decode(&obj); err != nil {
				t.Fatal(err)
			}
			for j, c := range cols {
				if err := matchArrow(rec.Column(j), i, obj[c]); err != nil {
					t.Fatalf("id %d column %s (%s): %v; execute_sql %s", id, c, schema.Field(j).Type, err, want[id])
				}
			}
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	ids.all(want)
}

// matchArrow says whether value i of arr means what execute_sql's JSON
// value want (decoded with UseNumber) says.
func matchArrow(arr arrow.Array, i int, want any) error {
	if arr.IsNull(i) {
		if want != nil {
			return fmt.Errorf("NULL, want %v", want)
		}
		return nil
	}
	if want == nil {
		return fmt.Errorf("%v, want NULL", arr.ValueStr(i))
	}
	text := fmt.Sprint(want) // a json.Number or a string
	differ := func(got any) error { return fmt.Errorf("%v, want %v", got, want) }
	switch a := arr.(type) {
	case *array.Int64:
		if strconv.FormatInt(a.Value(i), 10) != text {
			return differ(a.Value(i))
		}
	case *array.Float64:
		var w float64
		switch text {
		case "Infinity":
			w = math.Inf(1)
		case "-Infinity":
			w = math.Inf(-1)
		default:
			var err error
			if w, err = strconv.ParseFloat(text, 64); err != nil {
				return err
			}
		}
		if a.Value(i) != w {
			return differ(a.Value(i))
		}
	case *array.Boolean:
		if want != a.Value(i) {
			return differ(a.Value(i))
		}
	case *array.String:
		if s, isString := want.(string); isString {
			if a.Value(i) != s {
				return differ(a.Value(i))
			}
			return nil
		}
		// A JSON column: execute_sql embeds the document.
		var got any
		dec := json.NewDecoder(bytes.NewReader([]byte(a.Value(i))))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil || !reflect.DeepEqual(got, want) {
			return differ(a.Value(i))
		}
	case *array.Binary:
		if base64.StdEncoding.EncodeToString(a.Value(i)) != text {
			return differ(a.Value(i))
		}
	case *array.Date32:
		if a.Value(i).FormattedString() != text {
			return differ(a.Value(i).FormattedString())
		}
	case *array.Time64:
		w, err := civil.ParseTime(text)
		if err != nil {
			return err
		}
		micros := ((int64(w.Hour)*60+int64(w.Minute))*60+int64(w.Second))*1e6 + int64(w.Nanosecond)/1000
		if int64(a.Value(i)) != micros || a.DataType().(*arrow.Time64Type).Unit != arrow.Microsecond {
			return differ(a.Value(i))
		}
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		got := a.Value(i).ToTime(tt.Unit)
		// A DATETIME (no zone in execute_sql's text) is its wall clock.
		// The export's Arrow has it without a time zone, as BigQuery sends
		// it, but Arrow Go v15's Parquet writer marks every timestamp
		// isAdjustedToUTC, so it reads back as timestamp[us, tz=UTC]:
		// docs/tools.md says so.
		if w, err := civil.ParseDateTime(text); err == nil {
			if civil.DateTimeOf(got.UTC()) != w {
				return differ(civil.DateTimeOf(got))
			}
			return nil
		}
		w, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			return err
		}
		if !got.Equal(w) || tt.TimeZone != "UTC" {
			return differ(got)
		}
	case *array.Decimal128:
		return sameDecimal(a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale), text)
	case *array.Decimal256:
		return sameDecimal(a.Value(i).ToString(a.DataType().(*arrow.Decimal256Type).Scale), text)
	case *array.Struct:
		w, isObject := want.(map[string]any)
		st := a.DataType().(*arrow.StructType)
		if !isObject || len(w) != st.NumFields() {
			return differ("a struct")
		}
		for j, f := range st.Fields() {
			if err := matchArrow(a.Field(j), i, w[f.Name]); err != nil {
				return fmt.Errorf(".%s: %w", f.Name, err)
			}
		}
	case *array.List:
		w, isArray := want.([]any)
		start, end := a.ValueOffsets(i)
		if !isArray || int64(len(w)) != end-start {
			return differ(fmt.Sprintf("a list of %d", end-start))
		}
		for k := range w {
			if err := matchArrow(a.ListValues(), int(start)+k, w[k]); err != nil {
				return fmt.Errorf("[%d]: %w", k, err)
			}
		}
	default:
		return fmt.Errorf("no comparison for %T", arr)
	}
	return nil
}

// sameDecimal says whether two decimal texts are the same number.
func sameDecimal(got, want string) error {
	g, ok1 := new(big.Rat).SetString(got)
	w, ok2 := new(big.Rat).SetString(want)
	if !ok1 || !ok2 || g.Cmp(w) != 0 {
		return fmt.Errorf("%s, want %s", got, want)
	}
	return nil
}
