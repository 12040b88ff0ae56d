package query

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Parameter is a named query parameter (@name in the SQL) with an explicit
// GoogleSQL type, so values are never guessed from JSON: "1" can be a
// STRING, an INT64 or a NUMERIC, and only the agent knows which.
type Parameter struct {
	Name string `json:"name" jsonschema:"Name without the @."`
	Type string `json:"type" jsonschema:"GoogleSQL type, e.g. INT64, DATE, BYTES (base64), ARRAY<STRING>."`
	// Value is the JSON value: a string or number for scalars (strings keep
	// INT64 and NUMERIC exact), an array for ARRAY, an object for STRUCT,
	// null for NULL.
	Value any `json:"value" jsonschema:"Use strings for exact INT64/NUMERIC."`
}

// maxParameters bounds how many parameters one query may carry.
const maxParameters = 1000

// BuildParameters validates the agent's parameters and converts them into the
// client's typed form. Every problem is an INVALID_ARGUMENT naming the
// parameter, so the agent can fix exactly that one.
func BuildParameters(params []Parameter) ([]bigquery.QueryParameter, error) {
	if len(params) > maxParameters {
		return nil, bqerr.Invalid(fmt.Sprintf("too many parameters (%d; at most %d)", len(params), maxParameters), "Pass fewer parameters, e.g. one ARRAY parameter instead of many scalars.")
	}
	seen := make(map[string]bool, len(params))
	out := make([]bigquery.QueryParameter, 0, len(params))
	for i, p := range params {
		name := strings.TrimPrefix(strings.TrimSpace(p.Name), "@")
		if !validIdent(name) {
			return nil, bqerr.Invalid(fmt.Sprintf("parameter %d has an invalid name %q", i, bqerr.Truncate(p.Name, 100)),
				"Use the name as in the SQL without the @: letters, digits and underscores, not starting with a digit.")
		}
		if seen[strings.ToLower(name)] {
			return nil, bqerr.Invalid(fmt.Sprintf("parameter %q is given twice", name), "Give each parameter once.")
		}
		seen[strings.ToLower(name)] = true
		typ, err := ParseType(p.Type)
		if err != nil {
			return nil, bqerr.Invalid(fmt.Sprintf("parameter %q: %v", name, err), "Use a GoogleSQL type such as STRING, INT64, DATE, ARRAY<STRING> or STRUCT<id INT64, name STRING>.")
		}
		val, err := paramValue(typ, p.Value)
		if err != nil {
			return nil, bqerr.Invalid(fmt.Sprintf("parameter %q (%s): %v", name, FormatType(typ), err), "Give a value that matches the declared type; see the tool description for the value formats.")
		}
		out = append(out, bigquery.QueryParameter{Name: name, Value: val})
	}
	return out, nil
}

func validIdent(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

// scalarKinds maps accepted spellings (GoogleSQL and legacy) to the type kind
// the API expects.
var scalarKinds = map[string]string{
	"STRING": "STRING", "INT64": "INT64", "INTEGER": "INT64", "INT": "INT64", "SMALLINT": "INT64", "BIGINT": "INT64", "TINYINT": "INT64", "BYTEINT": "INT64",
	"FLOAT64": "FLOAT64", "FLOAT": "FLOAT64", "NUMERIC": "NUMERIC", "DECIMAL": "NUMERIC", "BIGNUMERIC": "BIGNUMERIC", "BIGDECIMAL": "BIGNUMERIC",
	"BOOL": "BOOL", "BOOLEAN": "BOOL", "BYTES": "BYTES", "DATE": "DATE", "DATETIME": "DATETIME", "TIME": "TIME", "TIMESTAMP": "TIMESTAMP",
	"JSON": "JSON", "GEOGRAPHY": "GEOGRAPHY", "INTERVAL": "INTERVAL",
}

// ParseType parses a GoogleSQL type such as INT64, ARRAY<STRING> or
// STRUCT<id INT64, tags ARRAY<STRING>>.
func ParseType(s string) (*bigquery.StandardSQLDataType, error) {
	p := &typeParser{s: s}
	t, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the type in %q", p.s[p.i:], bqerr.Truncate(s, 100))
	}
	return t, nil
}

type typeParser struct {
	s string
	i int
}

const maxTypeDepth = 15 // BigQuery allows 15 levels of nesting.

func (p *typeParser) parse(depth int) (*bigquery.StandardSQLDataType, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("type is nested more than %d levels", maxTypeDepth)
	}
	word := strings.ToUpper(p.word())
	switch word {
	case "":
		return nil, fmt.Errorf("missing type in %q", bqerr.Truncate(p.s, 100))
	case "ARRAY":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		elem, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		if elem.ArrayElementType != nil {
			return nil, fmt.Errorf("ARRAY of ARRAY is not allowed; wrap the inner array in a STRUCT")
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		return &bigquery.StandardSQLDataType{TypeKind: "ARRAY", ArrayElementType: elem}, nil
	case "STRUCT":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		st := &bigquery.StandardSQLStructType{}
		for {
			name := p.word()
			if !validIdent(name) {
				return nil, fmt.Errorf("STRUCT fields need a name and a type, e.g. STRUCT<id INT64>")
			}
			ft, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			st.Fields = append(st.Fields, &bigquery.StandardSQLField{Name: name, Type: ft})
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			break
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		return &bigquery.StandardSQLDataType{TypeKind: "STRUCT", StructType: st}, nil
	}
	kind, ok := scalarKinds[word]
	if !ok {
		return nil, fmt.Errorf("unknown type %q", bqerr.Truncate(word, 50))
	}
	// Parameterised types (STRING(10), NUMERIC(10,2)) constrain columns, not
	// parameters: accept and ignore the parameters.
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '(' {
		end := strings.IndexByte(p.s[p.i:], ')')
		if end < 0 {
			return nil, fmt.Errorf("unclosed ( in %q", bqerr.Truncate(p.s, 100))
		}
		p.i += end + 1
	}
	return &bigquery.StandardSQLDataType{TypeKind: kind}, nil
}

func (p *typeParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *typeParser) word() string {
	p.skipSpace()
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *typeParser) expect(c byte) error {
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != c {
		return fmt.Errorf("expected %q in type %q", string(c), bqerr.Truncate(p.s, 100))
	}
	p.i++
	return nil
}

// FormatType writes a type back in GoogleSQL spelling, for messages.
func FormatType(t *bigquery.StandardSQLDataType) string {
	switch t.TypeKind {
	case "ARRAY":
		return "ARRAY<" + FormatType(t.ArrayElementType) + ">"
	case "STRUCT":
		parts := make([]string, 0, len(t.StructType.Fields))
		for _, f := range t.StructType.Fields {
			parts = append(parts, f.Name+" "+FormatType(f.Type))
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	}
	return t.TypeKind
}

// paramValue converts a JSON value into the client's parameter value for an
// explicit type. Scalars are sent as the canonical strings the API expects,
// so nothing is lost to float64 on the way.
func paramValue(t *bigquery.StandardSQLDataType, v any) (*bigquery.QueryParameterValue, error) {
	qv := &bigquery.QueryParameterValue{Type: *t}
	if v == nil {
		// A NULL of the declared type: the client sends a value-less parameter.
		qv.Value = bigquery.NullString{}
		return qv, nil
	}
	switch t.TypeKind {
	case "ARRAY":
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want a JSON array, got %s", jsonKind(v))
		}
		if len(items) == 0 {
			// The client treats an empty ArrayValue as "not an array"; an
			// empty typed slice encodes as an empty array.
			qv.Value = []string{}
			return qv, nil
		}
		for i, item := range items {
			if item == nil {
				return nil, fmt.Errorf("element %d is null; BigQuery arrays cannot hold NULL", i)
			}
			ev, err := paramValue(t.ArrayElementType, item)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			qv.ArrayValue = append(qv.ArrayValue, *ev)
		}
		return qv, nil
	case "STRUCT":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want a JSON object, got %s", jsonKind(v))
		}
		qv.StructValue = make(map[string]bigquery.QueryParameterValue, len(t.StructType.Fields))
		known := make(map[string]bool, len(t.StructType.Fields))
		for _, f := range t.StructType.Fields {
			known[f.Name] = true
			fv, err := paramValue(f.Type, obj[f.Name])
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			qv.StructValue[f.Name] = *fv
		}
		for k := range obj {
			if !known[k] {
				return nil, fmt.Errorf("field %q is not in the STRUCT type", bqerr.Truncate(k, 100))
			}
		}
		return qv, nil
	}
	s, err := scalarString(t.TypeKind, v)
	if err != nil {
		return nil, err
	}
	qv.Value = s
	return qv, nil
}

// scalarString validates v for kind and returns the API's string form.
func scalarString(kind string, v any) (string, error) {
	switch kind {
	case "STRING", "GEOGRAPHY", "JSON", "BOOL":
		return jsonScalar(kind, v)
	}
	text, err := numberOrString(v)
	if err != nil {
		return "", err
	}
	switch kind {
	case "INT64", "FLOAT64", "NUMERIC", "BIGNUMERIC":
		return numberScalar(kind, text)
	}
	return textScalar(kind, text)
}

// jsonScalar reads the kinds whose JSON form is not a number or a string of
// one: STRING and GEOGRAPHY (strings), JSON (any JSON), BOOL.
func jsonScalar(kind string, v any) (string, error) {
	switch kind {
	case "STRING", "GEOGRAPHY":
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("want a JSON string, got %s", jsonKind(v))
		}
		return s, nil
	case "JSON":
		if s, ok := v.(string); ok && json.Valid([]byte(s)) {
			return s, nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return "", fmt.Errorf("cannot encode JSON value: %w", err)
		}
		return string(b), nil
	case "BOOL":
		switch x := v.(type) {
		case bool:
			return strconv.FormatBool(x), nil
		case string:
			b, err := strconv.ParseBool(x)
			if err != nil {
				return "", fmt.Errorf("want true or false, got %q", bqerr.Truncate(x, 50))
			}
			return strconv.FormatBool(b), nil
		}
		return "", fmt.Errorf("want true or false, got %s", jsonKind(v))
	}
	return "", fmt.Errorf("type %s is not a JSON scalar", kind)
}

// numberScalar reads a number given as JSON number or string text.
func numberScalar(kind, text string) (string, error) {
	switch kind {
	case "INT64":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			// JSON numbers like 1e3 or 5.0 are integers too when exact.
			r, ok := new(big.Rat).SetString(text)
			if !ok || !r.IsInt() || !r.Num().IsInt64() {
				return "", fmt.Errorf("want a whole number within INT64, got %s", bqerr.Truncate(text, 50))
			}
			n = r.Num().Int64()
		}
		return strconv.FormatInt(n, 10), nil
	case "FLOAT64":
		switch text {
		case "NaN", "Infinity", "-Infinity", "inf", "-inf", "+inf":
			return text, nil
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return "", fmt.Errorf("want a number, got %s", bqerr.Truncate(text, 50))
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case "NUMERIC", "BIGNUMERIC":
		r, ok := new(big.Rat).SetString(text)
		if !ok {
			return "", fmt.Errorf("want a decimal number, got %s", bqerr.Truncate(text, 50))
		}
		if kind == "NUMERIC" {
			return bigquery.NumericString(r), nil
		}
		return bigquery.BigNumericString(r), nil
	}
	return "", fmt.Errorf("type %s is not a number", kind)
}

// textScalar reads the kinds written as text: BYTES (base64), the civil and
// time kinds, INTERVAL.
func textScalar(kind, text string) (string, error) {
	switch kind {
	case "BYTES":
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return "", fmt.Errorf("want base64-encoded bytes: %v", err)
		}
		return base64.StdEncoding.EncodeToString(b), nil
	case "DATE":
		d, err := civil.ParseDate(text)
		if err != nil {
			return "", fmt.Errorf("want a date as YYYY-MM-DD, got %q", bqerr.Truncate(text, 50))
		}
		return d.String(), nil
	case "DATETIME":
		dt, err := civil.ParseDateTime(strings.Replace(text, " ", "T", 1))
		if err != nil {
			return "", fmt.Errorf("want a datetime as YYYY-MM-DDTHH:MM:SS[.ffffff], got %q", bqerr.Truncate(text, 50))
		}
		return bigquery.CivilDateTimeString(dt), nil
	case "TIME":
		tm, err := civil.ParseTime(text)
		if err != nil {
			return "", fmt.Errorf("want a time as HH:MM:SS[.ffffff], got %q", bqerr.Truncate(text, 50))
		}
		return bigquery.CivilTimeString(tm), nil
	case "TIMESTAMP":
		ts, err := time.Parse(time.RFC3339Nano, strings.Replace(text, " ", "T", 1))
		if err != nil {
			return "", fmt.Errorf("want an RFC 3339 timestamp such as 2024-05-01T12:00:00Z, got %q", bqerr.Truncate(text, 50))
		}
		return ts.UTC().Format("2006-01-02 15:04:05.999999-07:00"), nil
	case "INTERVAL":
		iv, err := bigquery.ParseInterval(text)
		if err != nil {
			return "", fmt.Errorf("want an interval such as '1-2 3 4:5:6' (Y-M D H:M:S), got %q", bqerr.Truncate(text, 50))
		}
		return bigquery.IntervalString(iv), nil
	}
	return "", fmt.Errorf("type %s is not supported as a parameter", kind)
}

// numberOrString accepts a JSON string or number and returns its text. JSON
// numbers arrive as json.Number (exact) or float64.
func numberOrString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x), nil
	case json.Number:
		return x.String(), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	return "", fmt.Errorf("want a string or number, got %s", jsonKind(v))
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case float64, json.Number, int, int64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
