package bqfake

import (
	"context"
	"net/http"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"
)

// Options point a BigQuery client at the fake, sending through hc (a
// client of its own when nil, on the fake's Transport when InProcess;
// with an HTTP client of its own the library sends no credentials).
func (f *Fake) Options(hc *http.Client) []option.ClientOption {
	if hc == nil {
		hc = f.HTTPClient()
	}
	return []option.ClientOption{option.WithHTTPClient(hc), option.WithEndpoint(f.URL + "/")}
}

// Client is a cloud.google.com/go/bigquery client of the fake's project
// talking to the fake through hc (see Options), closed when the test ends.
func (f *Fake) Client(t TB, hc *http.Client) *bigquery.Client {
	t.Helper()
	c, err := bigquery.NewClient(context.Background(), f.project, f.Options(hc)...)
	if err != nil {
		t.Fatalf("bigquery.NewClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// REST is the generated BigQuery REST service talking to the fake through
// hc (see Options).
func (f *Fake) REST(t TB, hc *http.Client) *bq.Service {
	t.Helper()
	s, err := bq.NewService(context.Background(), f.Options(hc)...)
	if err != nil {
		t.Fatalf("bigquery.NewService: %v", err)
	}
	return s
}

// HTTPClient is a new HTTP client for the fake: on its Transport when
// InProcess, on a transport of its own otherwise.
func (f *Fake) HTTPClient() *http.Client {
	if f.inProcess {
		return &http.Client{Transport: f.Transport()}
	}
	return &http.Client{Transport: &http.Transport{}}
}
