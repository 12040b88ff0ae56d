package schema

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// table is a table's metadata by its ID, for addTable.
func table(id string) *bq.Table { return &bq.Table{TableReference: &bq.TableReference{TableId: id}} }

// addTable adds t to dataset of the fake's project.
func addTable(fake *bqfake.Fake, dataset string, t *bq.Table) {
	t.TableReference = &bq.TableReference{ProjectId: fake.Project(), DatasetId: dataset, TableId: t.TableReference.TableId}
	fake.AddTable(t)
}

// paths lists the requests so far as "GET path?pageToken=…&maxResults=…".
func paths(fake *bqfake.Fake) []string {
	var out []string
	for _, r := range fake.Requests(bqfake.Any) {
		out = append(out, fmt.Sprintf("%s %s?pageToken=%s&maxResults=%s", r.Method, r.Path, r.Query.Get("pageToken"), r.Query.Get("maxResults")))
	}
	return out
}

// testService is a schema Service on the real BigQuery client and REST
// service, wired as the server wires them (resilience.Transport under both,
// a resilience.Executor, a metadata cache), talking to fake.
type testService struct {
	*Service
	fake  *bqfake.Fake
	cache *resilience.Cache
}

type serviceOptions struct {
	project  string
	identity string
	cacheTTL time.Duration
	cache    *resilience.Cache // shared with another service, when set
}

func newTestService(t *testing.T, fake *bqfake.Fake, o serviceOptions) *testService {
	t.Helper()
	hc := &http.Client{Transport: &resilience.Transport{Base: &http.Transport{}}}
	client, rest := fake.Client(t, hc), fake.REST(t, hc)
	t.Cleanup(hc.CloseIdleConnections)
	rcfg := resilience.Defaults()
	rcfg.Retry[resilience.Metadata] = resilience.Policy{Attempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Multiplier: 2, Timeout: 20 * time.Second}
	exec, err := resilience.NewExecutor(rcfg, resilience.Hooks{})
	if err != nil {
		t.Fatalf("resilience.NewExecutor: %v", err)
	}
	cache := o.cache
	if cache == nil {
		cache = resilience.NewCache(resilience.CacheConfig{TTL: o.cacheTTL, MaxStale: time.Hour})
	}
	if o.identity == "" {
		o.identity = "adc:sa@p.iam.gserviceaccount.com"
	}
	return &testService{Service: NewService(Config{Client: client, REST: rest, Executor: exec, Cache: cache, Identity: o.identity, Project: o.project}), fake: fake, cache: cache}
}
