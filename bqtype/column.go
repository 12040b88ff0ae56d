package bqtype

import (
	"cloud.google.com/go/bigquery"
)

// Column describes one column of a table or query result the way BigQuery
// users write types: INT64 rather than INTEGER, STRUCT rather than RECORD, so
// an agent can copy the type into SQL or a query parameter.
type Column struct {
	Name string `json:"name"`
	// Type is the GoogleSQL type name: STRING, INT64, FLOAT64, NUMERIC,
	// BIGNUMERIC, BOOL, BYTES, DATE, DATETIME, TIME, TIMESTAMP, GEOGRAPHY,
	// JSON, INTERVAL, RANGE, or STRUCT (with Fields).
	Type string `json:"type"`
	// Mode is NULLABLE, REQUIRED or REPEATED (an ARRAY of Type). An
	// answer may leave out BigQuery's default, NULLABLE (get_table_schema
	// does): no mode means NULLABLE.
	Mode        string `json:"mode,omitempty"`
	Description string `json:"description,omitempty"`
	// RangeElementType is the element type of a RANGE column.
	RangeElementType string `json:"rangeElementType,omitempty"`
	// MaxLength, Precision and Scale are the parameterised type's limits,
	// when set (STRING(10), NUMERIC(10, 2)).
	MaxLength int64 `json:"maxLength,omitempty"`
	Precision int64 `json:"precision,omitempty"`
	Scale     int64 `json:"scale,omitempty"`
	// DefaultValue is the column's default value expression, when set.
	DefaultValue string `json:"defaultValue,omitempty"`
	// PolicyTags names the column-level security tags that guard the column.
	PolicyTags []string `json:"policyTags,omitempty"`
	// Fields are the sub-columns of a STRUCT.
	Fields []Column `json:"fields,omitempty"`
}

// Columns converts a BigQuery schema into agent-facing columns. A nil schema
// gives an empty (never nil) list.
func Columns(s bigquery.Schema) []Column {
	cols := make([]Column, 0, len(s))
	for _, f := range s {
		cols = append(cols, column(f))
	}
	return cols
}

func column(f *bigquery.FieldSchema) Column {
	c := Column{
		Name:         f.Name,
		Type:         SQLType(f.Type),
		Mode:         mode(f),
		Description:  f.Description,
		MaxLength:    f.MaxLength,
		Precision:    f.Precision,
		Scale:        f.Scale,
		DefaultValue: f.DefaultValueExpression,
	}
	if f.RangeElementType != nil {
		c.RangeElementType = SQLType(f.RangeElementType.Type)
	}
	if f.PolicyTags != nil {
		c.PolicyTags = append(c.PolicyTags, f.PolicyTags.Names...)
	}
	if len(f.Schema) > 0 {
		c.Fields = Columns(f.Schema)
	}
	return c
}

func mode(f *bigquery.FieldSchema) string {
	switch {
	case f.Repeated:
		return "REPEATED"
	case f.Required:
		return "REQUIRED"
	default:
		return "NULLABLE"
	}
}

// SQLType maps the REST API's legacy type names to GoogleSQL names.
func SQLType(t bigquery.FieldType) string {
	switch t {
	case bigquery.IntegerFieldType:
		return "INT64"
	case bigquery.FloatFieldType:
		return "FLOAT64"
	case bigquery.BooleanFieldType:
		return "BOOL"
	case bigquery.RecordFieldType:
		return "STRUCT"
	default:
		return string(t)
	}
}
