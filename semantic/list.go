package semantic

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// pageBytes bounds a list_metrics page: at most 4 KB of JSON.
const pageBytes = 4 << 10

// ListInput is list_metrics' input.
type ListInput struct {
	Search    string `json:"search,omitempty" jsonschema:"Words in name, label, description."`
	PageToken string `json:"pageToken,omitempty" `
}

// MetricInfo is one metric in list_metrics.
type MetricInfo struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Label       string `json:"label,omitempty"`
	Certified   bool   `json:"certified,omitempty"`
	Description string `json:"description,omitempty"`
	// GroupBy are the dimensions (entity__name) it can be grouped by,
	// besides metric_time and entities.
	GroupBy []string `json:"groupBy,omitempty"`
}

// SavedQueryInfo is one saved query in list_metrics.
type SavedQueryInfo struct {
	Name        string     `json:"name"`
	Label       string     `json:"label,omitempty"`
	Description string     `json:"description,omitempty"`
	Query       QueryInput `json:"query"`
}

// ListOutput is list_metrics' answer.
type ListOutput struct {
	Metrics []MetricInfo `json:"metrics"`
	// SavedQueries are on the first page, when the search matches them.
	SavedQueries  []SavedQueryInfo `json:"savedQueries,omitempty"`
	NextPageToken string           `json:"nextPageToken,omitempty"`
	Manifest      ManifestStamp    `json:"manifest"`
}

// List answers list_metrics: certified metrics first, then by name, each
// matching every search word in its name, label or description; pages of
// at most 4 KB.
func (m *Manifest) List(in ListInput) (*ListOutput, error) {
	start := 0
	if in.PageToken != "" {
		n, err := strconv.Atoi(in.PageToken)
		if err != nil || n < 0 {
			return nil, bqerr.Invalid("pageToken is not one list_metrics gave", "Pass nextPageToken as it came, with the same search.")
		}
		start = n
	}
	words := strings.Fields(strings.ToLower(in.Search))
	out := &ListOutput{Metrics: []MetricInfo{}, Manifest: m.Stamp()}
	size := 200
	if start == 0 {
		for _, sq := range m.savedOrder {
			if matches(words, sq.Name, sq.Label, sq.Description) {
				info := SavedQueryInfo{Name: sq.Name, Label: sq.Label, Description: oneLine(sq.Description), Query: sq.Query}
				size += jsonSize(info)
				out.SavedQueries = append(out.SavedQueries, info)
			}
		}
	}
	for i := start; i < len(m.order); i++ {
		met := m.order[i]
		if !matches(words, met.Name, met.Label, met.Description) {
			continue
		}
		info := MetricInfo{Name: met.Name, Type: met.Type, Label: met.Label, Certified: met.Certified, Description: oneLine(met.Description)}
		for _, d := range m.dimensionsOf(met) {
			if strings.Contains(d, "__") {
				info.GroupBy = append(info.GroupBy, d)
			}
		}
		n := jsonSize(info)
		if size+n > pageBytes && len(out.Metrics) > 0 {
			out.NextPageToken = strconv.Itoa(i)
			break
		}
		size += n
		out.Metrics = append(out.Metrics, info)
	}
	return out, nil
}

func matches(words []string, fields ...string) bool {
	text := strings.ToLower(strings.Join(fields, " "))
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

func jsonSize(v any) int {
	b, _ := json.Marshal(v)
	return len(b) + 1
}
