package observability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Transport wraps base (nil means http.DefaultTransport) so that every
// BigQuery REST request gets a client span "bigquery <db.operation.name>"
// and a db.client.operation.duration measurement, from sending the request
// until its response body was read to the end or closed.
//
// Attributes are db.system.name, db.operation.name (derived from the REST
// path, see [DBOperationName]), http.request.method,
// http.response.status_code and, for a failure, error.type (the HTTP
// status, or the kind of transport error). The URL, with its IDs and query
// string, is never recorded.
func (t *Telemetry) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{t: t, base: base}
}

type transport struct {
	t    *Telemetry
	base http.RoundTripper
}

// CloseIdleConnections lets http.Client.CloseIdleConnections (and
// resilience.Transport) reach the base transport.
func (tr *transport) CloseIdleConnections() {
	if c, ok := tr.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	op := DBOperationName(req.Method, req.URL.Path)
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	ctx, span := tr.t.tracer.Start(req.Context(), "bigquery "+op,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(AttrDBSystemName.String(DBSystemName), AttrDBOperationName.String(op), AttrHTTPMethod.String(method)))
	start := time.Now()
	resp, err := tr.base.RoundTrip(req)
	r := &requestRecord{t: tr.t, ctx: ctx, span: span, start: start, op: op}
	if err != nil {
		r.finish(0, err)
		return resp, err
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		r.finish(resp.StatusCode, nil)
		return resp, nil
	}
	r.status = resp.StatusCode
	resp.Body = &timedBody{ReadCloser: resp.Body, r: r}
	return resp, nil
}

// requestRecord ends one request's span and measurement, once.
type requestRecord struct {
	t      *Telemetry
	ctx    context.Context
	span   trace.Span
	start  time.Time
	op     string
	status int
	once   sync.Once
}

func (r *requestRecord) finish(status int, err error) {
	r.once.Do(func() {
		attrs := make([]attribute.KeyValue, 0, 4)
		attrs = append(attrs, AttrDBSystemName.String(DBSystemName), AttrDBOperationName.String(r.op))
		if status != 0 {
			attrs = append(attrs, AttrHTTPStatusCode.Int(status))
			r.span.SetAttributes(AttrHTTPStatusCode.Int(status))
		}
		errType := ""
		switch {
		case status >= 400:
			errType = strconv.Itoa(status)
		case err != nil:
			errType = transportErrorType(err)
		}
		if errType != "" {
			attrs = append(attrs, AttrErrorType.String(errType))
			r.span.SetAttributes(AttrErrorType.String(errType))
			r.span.SetStatus(codes.Error, errType)
		}
		r.t.inst.dbDuration.Record(r.ctx, time.Since(r.start).Seconds(), metric.WithAttributes(attrs...))
		r.span.End()
	})
}

// timedBody finishes the request's record at EOF, on a read error, or on
// Close, whichever comes first.
type timedBody struct {
	io.ReadCloser
	r *requestRecord
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF:
		b.r.finish(b.r.status, nil)
	case err != nil:
		b.r.finish(b.r.status, err)
	}
	return n, err
}

func (b *timedBody) Close() error {
	err := b.ReadCloser.Close()
	b.r.finish(b.r.status, nil)
	return err
}

// transportErrorType names a request that got no response, with a bounded
// set of values: context.Canceled, context.DeadlineExceeded, timeout, or
// the Go type of the error (such as *net.OpError).
func transportErrorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "context.Canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	return fmt.Sprintf("%T", err)
}

// The collections of the BigQuery REST API that follow a project.
var restCollections = map[string]bool{
	"jobs": true, "queries": true, "datasets": true, "tables": true,
	"routines": true, "models": true, "rowAccessPolicies": true,
}

// OtherOperation is db.operation.name for a request this package cannot
// name.
const OtherOperation = "_OTHER"

// DBOperationName names a BigQuery REST request after its API method
// (jobs.insert, jobs.get, jobs.getQueryResults, jobs.query, jobs.cancel,
// tabledata.list, tables.get, tables.list, datasets.list, datasets.get, …)
// from its method and URL path. It never returns part of the path itself:
// no project, dataset, table or job ID can leak into a metric. A path it
// does not recognise is "_OTHER".
func DBOperationName(method, path string) string {
	if method == "" {
		method = http.MethodGet
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	i := -1
	for j, s := range segs {
		if s == "projects" {
			i = j
			break
		}
	}
	if i < 0 {
		return OtherOperation
	}
	rest := segs[i+1:]
	n := len(rest)
	switch n {
	case 0:
		if method == http.MethodGet {
			return "projects.list"
		}
		return OtherOperation
	case 1:
		return OtherOperation
	}
	last := rest[n-1]
	action := ""
	if j := strings.LastIndexByte(last, ':'); j >= 0 {
		action, last = last[j+1:], last[:j]
		if !shortName(action, asciiLetter) {
			return OtherOperation
		}
	}
	if n%2 == 0 { // ends with a collection or a verb: projects/p/jobs, …/jobs/j/cancel
		if action != "" {
			return OtherOperation
		}
		return collectionOperation(method, rest)
	}
	// Ends with an ID: projects/p/jobs/j, …/tables/t, …/tables/t:getIamPolicy.
	return resourceOperation(method, rest[n-2], action)
}

// collectionOperation names a request whose path ends with a collection or
// a verb (rest is the path after "projects").
func collectionOperation(method string, rest []string) string {
	n := len(rest)
	last := rest[n-1]
	parent := ""
	if n >= 3 {
		parent = rest[n-3]
	}
	switch {
	case n == 2 && last == "serviceAccount":
		return "projects.getServiceAccount"
	case parent == "jobs" && (last == "cancel" || last == "delete"):
		return "jobs." + last
	case parent == "tables" && last == "data" && method == http.MethodGet:
		return "tabledata.list"
	case parent == "tables" && last == "insertAll" && method == http.MethodPost:
		return "tabledata.insertAll"
	case last == "queries":
		if method == http.MethodPost {
			return "jobs.query"
		}
		return OtherOperation
	case !restCollections[last]:
		return OtherOperation
	}
	switch method {
	case http.MethodGet:
		return last + ".list"
	case http.MethodPost:
		return last + ".insert"
	}
	return OtherOperation
}

// resourceOperation names a request whose path ends with a resource ID in
// collection coll, with an optional ":action".
func resourceOperation(method, coll, action string) string {
	if !restCollections[coll] {
		return OtherOperation
	}
	if coll == "queries" {
		if method == http.MethodGet && action == "" {
			return "jobs.getQueryResults"
		}
		return OtherOperation
	}
	if action != "" {
		return coll + "." + action
	}
	switch method {
	case http.MethodGet:
		return coll + ".get"
	case http.MethodPatch:
		return coll + ".patch"
	case http.MethodPut:
		return coll + ".update"
	case http.MethodDelete:
		return coll + ".delete"
	}
	return OtherOperation
}
