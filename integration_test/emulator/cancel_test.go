package emulator

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCancelledRequestLeavesEmulatorServing: a client that goes away while
// the emulator runs its statement (a server's caller cancelled, a killed
// binary) must not leave the emulator answering 500 to every later
// request, as goccy/bigquery-emulator v0.6.6 does when the request's
// context is cancelled mid-statement (goccy/bigquery-emulator#478): the
// tests share one emulator, and one such request failed every test after it.
func TestCancelledRequestLeavesEmulatorServing(t *testing.T) {
	e, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	list := func() int {
		t.Helper()
		res, err := http.Get(e.URL + "/projects/" + Project + "/datasets")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := list(); got != http.StatusOK {
		t.Fatalf("datasets.list before = %d", got)
	}
	for _, wait := range []time.Duration{5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond} {
		for _, path := range []string{"/projects/" + Project + "/queries", "/projects/" + Project + "/jobs"} {
			body := `{"query":"SELECT SUM(a.n * b.n) FROM UNNEST(GENERATE_ARRAY(1, 300)) AS a.n CROSS JOIN UNNEST(GENERATE_ARRAY(1, 300)) AS b","useLegacySql":false}`
			if strings.HasSuffix(path, "/jobs") {
				body = `{"configuration":{"query":{"query":"SELECT SUM(x * y) FROM UNNEST(GENERATE_ARRAY(1, 300)) AS x CROSS JOIN UNNEST(GENERATE_ARRAY(1, 300)) AS y","useLegacySql":false}}}`
			} else {
				body = `{"query":"SELECT SUM(x * y) FROM UNNEST(GENERATE_ARRAY(1, 300)) AS x CROSS JOIN UNNEST(GENERATE_ARRAY(1, 300)) AS y","useLegacySql":false}`
			}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.URL+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
			cancel()
			time.Sleep(100 * time.Millisecond)
			if got := list(); got != http.StatusOK {
				t.Fatalf("datasets.list after a request to %s cancelled after %v = %d, want 200", path, wait, got)
			}
		}
	}
}
