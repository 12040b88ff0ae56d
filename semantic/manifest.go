// Package semantic serves metrics from a dbt semantic manifest
// (semantic_manifest.json, which `dbt parse` writes): it loads the
// manifest, lists and describes its metrics, and compiles a metric query
// to one BigQuery SELECT with MetricFlow's semantics. It never runs a
// job: the server hands the SQL it compiles to query's one path, the one
// execute_sql takes, so every rule that holds for SQL holds for metrics.
//
// A leaf: it knows the manifest, SQL text (sqltext, to read filters) and
// BigQuery's identifier rules (bqtype).
package semantic

import (
	"encoding/json"
	"strconv"
	"strings"
)

// The manifest's JSON, as dbt-semantic-interfaces writes it. Only the
// fields the compiler reads are declared; the rest are ignored.
type (
	manifestJSON struct {
		SemanticModels []modelJSON      `json:"semantic_models"`
		Metrics        []metricJSON     `json:"metrics"`
		SavedQueries   []savedQueryJSON `json:"saved_queries"`
		Project        struct {
			TimeSpineTables []struct {
				Location   string `json:"location"`
				ColumnName string `json:"column_name"`
				Grain      string `json:"grain"`
			} `json:"time_spine_table_configurations"`
			TimeSpines []struct {
				NodeRelation  relationJSON `json:"node_relation"`
				PrimaryColumn struct {
					Name  string `json:"name"`
					Grain string `json:"time_granularity"`
				} `json:"primary_column"`
			} `json:"time_spines"`
		} `json:"project_configuration"`
		Metadata *struct {
			GeneratedAt string `json:"generated_at"`
		} `json:"metadata"`
	}
	relationJSON struct {
		Alias    string `json:"alias"`
		Schema   string `json:"schema_name"`
		Database string `json:"database"`
	}
	modelJSON struct {
		Name          string       `json:"name"`
		Description   string       `json:"description"`
		NodeRelation  relationJSON `json:"node_relation"`
		PrimaryEntity string       `json:"primary_entity"`
		Defaults      *struct {
			AggTimeDimension string `json:"agg_time_dimension"`
		} `json:"defaults"`
		Entities   []entityJSON    `json:"entities"`
		Measures   []measureJSON   `json:"measures"`
		Dimensions []dimensionJSON `json:"dimensions"`
	}
	entityJSON struct {
		Name string `json:"name"`
		Type string `json:"type"`
		Expr string `json:"expr"`
	}
	dimensionJSON struct {
		Name        string `json:"name"`
		Type        string `json:"type"`
		Expr        string `json:"expr"`
		Description string `json:"description"`
		TypeParams  *struct {
			Grain    string          `json:"time_granularity"`
			Validity json.RawMessage `json:"validity_params"`
		} `json:"type_params"`
	}
	measureJSON struct {
		Name             string             `json:"name"`
		Agg              string             `json:"agg"`
		Expr             string             `json:"expr"`
		Description      string             `json:"description"`
		AggParams        *aggParamsJSON     `json:"agg_params"`
		NonAdditive      *nonAdditiveJSON   `json:"non_additive_dimension"`
		AggTimeDimension string             `json:"agg_time_dimension"`
		Config           *elementConfigJSON `json:"config"`
	}
	aggParamsJSON struct {
		Percentile  *float64 `json:"percentile"`
		Discrete    bool     `json:"use_discrete_percentile"`
		Approximate bool     `json:"use_approximate_percentile"`
	}
	nonAdditiveJSON struct {
		Name            string   `json:"name"`
		WindowChoice    string   `json:"window_choice"`
		WindowGroupings []string `json:"window_groupings"`
	}
	elementConfigJSON struct {
		Meta map[string]any `json:"meta"`
	}
	filterJSON struct {
		WhereFilters []struct {
			Template string `json:"where_sql_template"`
		} `json:"where_filters"`
	}
	inputMeasureJSON struct {
		Name            string      `json:"name"`
		Filter          *filterJSON `json:"filter"`
		Alias           string      `json:"alias"`
		JoinToTimespine bool        `json:"join_to_timespine"`
		FillNullsWith   *int64      `json:"fill_nulls_with"`
	}
	inputMetricJSON struct {
		Name          string      `json:"name"`
		Filter        *filterJSON `json:"filter"`
		Alias         string      `json:"alias"`
		OffsetWindow  *windowJSON `json:"offset_window"`
		OffsetToGrain string      `json:"offset_to_grain"`
	}
	metricJSON struct {
		Name        string             `json:"name"`
		Description string             `json:"description"`
		Label       string             `json:"label"`
		Type        string             `json:"type"`
		Filter      *filterJSON        `json:"filter"`
		Config      *elementConfigJSON `json:"config"`
		TypeParams  struct {
			Measure     *inputMeasureJSON `json:"measure"`
			Numerator   *inputMetricJSON  `json:"numerator"`
			Denominator *inputMetricJSON  `json:"denominator"`
			Expr        string            `json:"expr"`
			Window      *windowJSON       `json:"window"`
			GrainToDate string            `json:"grain_to_date"`
			Metrics     []inputMetricJSON `json:"metrics"`
			Cumulative  *struct {
				Window      *windowJSON      `json:"window"`
				GrainToDate string           `json:"grain_to_date"`
				PeriodAgg   string           `json:"period_agg"`
				Metric      *inputMetricJSON `json:"metric"`
			} `json:"cumulative_type_params"`
			Aggregation *struct {
				SemanticModel    string           `json:"semantic_model"`
				Agg              string           `json:"agg"`
				AggParams        *aggParamsJSON   `json:"agg_params"`
				AggTimeDimension string           `json:"agg_time_dimension"`
				NonAdditive      *nonAdditiveJSON `json:"non_additive_dimension"`
			} `json:"metric_aggregation_params"`
			JoinToTimespine bool   `json:"join_to_timespine"`
			FillNullsWith   *int64 `json:"fill_nulls_with"`
		} `json:"type_params"`
	}
	savedQueryJSON struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Label       string `json:"label"`
		Params      struct {
			Metrics []string    `json:"metrics"`
			GroupBy []string    `json:"group_by"`
			OrderBy []string    `json:"order_by"`
			Limit   *int        `json:"limit"`
			Where   *filterJSON `json:"where"`
		} `json:"query_params"`
	}
)

// windowJSON is a time window: {"count": 7, "granularity": "day"}, or the
// string "7 days" older manifests hold.
type windowJSON struct {
	Count int
	Grain string
}

func (w *windowJSON) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		count, grain, ok := strings.Cut(strings.TrimSpace(s), " ")
		n, err := strconv.Atoi(count)
		if !ok || err != nil {
			return &json.UnmarshalTypeError{Value: "window " + strconv.Quote(s), Type: nil}
		}
		w.Count, w.Grain = n, strings.TrimSuffix(strings.ToLower(strings.TrimSpace(grain)), "s")
		return nil
	}
	var o struct {
		Count int    `json:"count"`
		Grain string `json:"granularity"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	w.Count, w.Grain = o.Count, strings.TrimSuffix(strings.ToLower(o.Grain), "s")
	return nil
}

func (f *filterJSON) templates() []string {
	if f == nil {
		return nil
	}
	out := make([]string, 0, len(f.WhereFilters))
	for _, w := range f.WhereFilters {
		out = append(out, w.Template)
	}
	return out
}
