// Package emulator runs goccy/bigquery-emulator in-process with the sample
// data, for the integration tests and `make demo`.
package emulator

import (
	"context"
	_ "embed"
	"fmt"
	"net/http/httptest"
	"os"
	"sync"

	"cloud.google.com/go/bigquery"
	"github.com/goccy/bigquery-emulator/server"
	"google.golang.org/api/option"
)

// Project is the sample data's project.
const Project = "demo-project"

//go:embed sample.yaml
var sampleYAML []byte

// Emulator is a running emulator.
type Emulator struct {
	// URL is the BigQuery REST endpoint (pass it as --endpoint).
	URL  string
	srv  *server.Server
	test *server.TestServer
	// front serves URL: the emulator behind jobStore, which keeps the jobs
	// of jobs.query (see jobs.go).
	front *httptest.Server
	jobs  *jobStore
	dir   string

	storageOnce sync.Once
	storageAddr string
	storage     func()
	storageErr  error
}

// ViewQuery is the SQL of the sample view shop.customer_revenue.
const ViewQuery = "SELECT c.customer_id, c.name, SUM(o.total) AS revenue FROM `demo-project.shop.customers` c JOIN `demo-project.shop.orders` o USING (customer_id) GROUP BY c.customer_id, c.name"

// Start starts an emulator loaded with the sample data and, after it, the
// datasets of each extra emulator YAML (such as the semantic layer's shop,
// semantic/testdata/shop/data.yaml).
func Start(ctx context.Context, extra ...[]byte) (*Emulator, error) {
	dir, err := os.MkdirTemp("", "bqmcp-emulator-")
	if err != nil {
		return nil, err
	}
	projects, err := decodeProjects(append([][]byte{sampleYAML}, extra...))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("reading emulator data: %w", err)
	}
	srv, err := server.New(server.TempStorage)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting emulator: %w", err)
	}
	if err := srv.Load(server.StructSource(projects...)); err != nil {
		srv.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("loading sample data: %w", err)
	}
	if err := srv.SetProject(Project); err != nil {
		srv.Close()
		return nil, err
	}
	ts := srv.TestServer()
	jobs, err := newJobStore(ts.URL)
	if err != nil {
		ts.Close()
		srv.Close()
		return nil, err
	}
	front := httptest.NewServer(jobs)
	e := &Emulator{URL: front.URL, srv: srv, test: ts, front: front, jobs: jobs, dir: dir}
	if err := e.createView(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("creating sample view: %w", err)
	}
	return e, nil
}

func (e *Emulator) createView(ctx context.Context) error {
	c, err := bigquery.NewClient(ctx, Project, option.WithEndpoint(e.URL), option.WithoutAuthentication())
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Dataset("shop").Table("customer_revenue").Create(ctx, &bigquery.TableMetadata{
		ViewQuery:   ViewQuery,
		Description: "Revenue per customer",
	})
}

// Close stops the emulator and removes its files.
func (e *Emulator) Close() {
	if e.storage != nil {
		e.storage()
	}
	e.front.Close()
	e.test.Close()
	e.srv.Close()
	os.RemoveAll(e.dir)
}

// StorageAddr starts, once, a plaintext gRPC endpoint for the Storage
// Read API on a TCP port (pass it as --storage-endpoint) and returns its
// host:port. It is storageFront (storage.go) in front of the test server's
// in-memory gRPC listener.
func (e *Emulator) StorageAddr() (string, error) {
	e.storageOnce.Do(func() {
		var f *StorageFront
		if f, e.storageErr = serveStorage(e.test, "", StorageOptions{}); f != nil {
			e.storageAddr, e.storage = f.Addr, f.Close
		}
	})
	return e.storageAddr, e.storageErr
}
