package query

// Query parameters in the REST service's wire types: jobs.query takes them
// in that form, and the client keeps its own converter unexported, so the
// one this package needs is here, kept to the client's wire format. Result
// rows go the other way in package rows.

import (
	"fmt"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"
)

// restParameters converts built parameters (BuildParameters) to the REST
// form, exactly as the client library would send them.
func restParameters(params []bigquery.QueryParameter) ([]*bq.QueryParameter, error) {
	out := make([]*bq.QueryParameter, 0, len(params))
	for _, p := range params {
		v, ok := p.Value.(*bigquery.QueryParameterValue)
		if !ok {
			return nil, fmt.Errorf("parameter %s: unexpected value type %T", p.Name, p.Value)
		}
		out = append(out, &bq.QueryParameter{Name: p.Name, ParameterType: restType(&v.Type), ParameterValue: restValue(v)})
	}
	return out, nil
}

func restType(t *bigquery.StandardSQLDataType) *bq.QueryParameterType {
	out := &bq.QueryParameterType{Type: t.TypeKind}
	if t.ArrayElementType != nil {
		out.ArrayType = restType(t.ArrayElementType)
	}
	if t.StructType != nil {
		for _, f := range t.StructType.Fields {
			out.StructTypes = append(out.StructTypes, &bq.QueryParameterTypeStructTypes{Name: f.Name, Type: restType(f.Type)})
		}
	}
	return out
}

// restValue converts a parameter value. BuildParameters produces only
// canonical strings, NullString (NULL), an empty []string (empty ARRAY),
// ArrayValue and StructValue.
func restValue(v *bigquery.QueryParameterValue) *bq.QueryParameterValue {
	switch {
	case len(v.ArrayValue) > 0:
		out := &bq.QueryParameterValue{ArrayValues: make([]*bq.QueryParameterValue, 0, len(v.ArrayValue))}
		for i := range v.ArrayValue {
			out.ArrayValues = append(out.ArrayValues, restValue(&v.ArrayValue[i]))
		}
		return out
	case len(v.StructValue) > 0:
		out := &bq.QueryParameterValue{StructValues: make(map[string]bq.QueryParameterValue, len(v.StructValue))}
		for name, f := range v.StructValue {
			out.StructValues[name] = *restValue(&f)
		}
		return out
	}
	switch x := v.Value.(type) {
	case string:
		// An empty string is a value, not an absent field.
		return &bq.QueryParameterValue{Value: x, ForceSendFields: []string{"Value"}}
	case []string:
		return &bq.QueryParameterValue{ArrayValues: []*bq.QueryParameterValue{}, ForceSendFields: []string{"ArrayValues"}}
	}
	// NULL of the declared type: a value with no value field.
	return &bq.QueryParameterValue{NullFields: []string{"Value"}}
}
