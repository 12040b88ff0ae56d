package rows

import (
	"encoding/json"
	"reflect"
	"testing"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"
)

// TestSchemaFromRESTAsTheClientReadsIt: the direct conversion gives the
// schema the client library's own reader (bigquery.SchemaFromJSON, after a
// JSON round trip) gives, for every field the REST schema carries, nested
// records included.
func TestSchemaFromRESTAsTheClientReadsIt(t *testing.T) {
	precision := int64(12)
	ts := &bq.TableSchema{Fields: []*bq.TableFieldSchema{
		{Name: "id", Type: "INTEGER", Mode: "REQUIRED", Description: "the key"},
		{Name: "name", Type: "STRING", MaxLength: 40, Collation: "und:ci", DefaultValueExpression: "'x'",
			PolicyTags: &bq.TableFieldSchemaPolicyTags{Names: []string{"projects/p/locations/us/taxonomies/1/policyTags/2"}}},
		{Name: "amount", Type: "NUMERIC", Precision: 10, Scale: 2, RoundingMode: "ROUND_HALF_EVEN"},
		{Name: "at", Type: "TIMESTAMP", TimestampPrecision: &precision},
		{Name: "span", Type: "RANGE", RangeElementType: &bq.TableFieldSchemaRangeElementType{Type: "DATE"}},
		{Name: "tags", Type: "STRING", Mode: "REPEATED"},
		{Name: "address", Type: "RECORD", Mode: "NULLABLE", Fields: []*bq.TableFieldSchema{
			{Name: "city", Type: "STRING"},
			{Name: "lines", Type: "RECORD", Mode: "REPEATED", Fields: []*bq.TableFieldSchema{{Name: "text", Type: "STRING"}}},
		}},
	}}
	b, err := json.Marshal(ts.Fields)
	if err != nil {
		t.Fatal(err)
	}
	want, err := bigquery.SchemaFromJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := SchemaFromREST(ts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		t.Errorf("SchemaFromREST =\n%s\nwant (the client's reader)\n%s", gb, wb)
	}
	if got, err := SchemaFromREST(&bq.TableSchema{}); got != nil || err != nil {
		t.Errorf("empty schema = %v, %v; want nil", got, err)
	}
}
