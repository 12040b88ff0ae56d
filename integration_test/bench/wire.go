package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// wire is a reverse proxy between a BigQuery client (the server or the raw
// Go client) and the emulator. It counts requests, adds the time they spend
// at BigQuery, and can add a fixed delay to each one to model a real
// network round trip.
type wire struct {
	URL    string
	server *httptest.Server
	delay  atomic.Int64 // nanoseconds added before forwarding

	mu       sync.Mutex
	requests []string // "METHOD path" of each request since reset
	spent    time.Duration
}

func newWire(backend string) (*wire, error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, err
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	w := &wire{}
	w.server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if d := time.Duration(w.delay.Load()); d > 0 {
			time.Sleep(d)
		}
		proxy.ServeHTTP(rw, r)
		w.mu.Lock()
		w.requests = append(w.requests, r.Method+" "+r.URL.Path)
		w.spent += time.Since(start)
		w.mu.Unlock()
	}))
	w.URL = w.server.URL
	return w, nil
}

// setDelay makes every later request wait d before it is forwarded.
func (w *wire) setDelay(d time.Duration) { w.delay.Store(int64(d)) }

// reset forgets what was counted.
func (w *wire) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests, w.spent = nil, 0
}

// seen returns the requests since the last reset and the time spent in them.
func (w *wire) seen() ([]string, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.requests...), w.spent
}

func (w *wire) close() { w.server.Close() }
