package bqfake

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
)

// Rule scripts the answers to the requests of one route. Rules are tried
// in the order they were added; the first that matches a request answers
// it, and a request no rule answers goes to the store. A rule without an
// action answers nothing (it can still count its requests).
type Rule struct {
	f     *Fake
	route Route
	when  func(*Request) bool
	left  int // requests it may still take; <0 for any number
	act   func(f *Fake, w http.ResponseWriter, r *Request) bool
}

// On adds a rule for route (Any for every route) and returns it for
// scripting.
func (f *Fake) On(route Route) *Rule {
	r := &Rule{f: f, route: route, left: -1}
	f.mu.Lock()
	f.rules = append(f.rules, r)
	f.mu.Unlock()
	return r
}

// Off removes the rule: later requests go on without it.
func (r *Rule) Off() {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	for i, x := range r.f.rules {
		if x == r {
			r.f.rules = append(r.f.rules[:i:i], r.f.rules[i+1:]...)
			return
		}
	}
}

// When limits the rule to the requests match accepts.
func (r *Rule) When(match func(*Request) bool) *Rule {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.when = match
	return r
}

// Times limits the rule to the first n requests it matches; later ones
// go on to the next rule or the store.
func (r *Rule) Times(n int) *Rule {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.left = n
	return r
}

func (r *Rule) set(act func(f *Fake, w http.ResponseWriter, req *Request) bool) *Rule {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.act = act
	return r
}

// take says whether the rule answers req, and counts it if so.
func (r *Rule) take(req *Request) bool {
	r.f.mu.Lock()
	route, when, left, act := r.route, r.when, r.left, r.act
	r.f.mu.Unlock()
	if act == nil || (route != Any && route != req.Route) || left == 0 {
		return false
	}
	if when != nil && !when(req) {
		return false
	}
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	if r.left == 0 {
		return false
	}
	if r.left > 0 {
		r.left--
	}
	return true
}

// apply answers req; false lets the request go on to the next rule.
func (r *Rule) apply(f *Fake, w http.ResponseWriter, req *Request) bool {
	r.f.mu.Lock()
	act := r.act
	r.f.mu.Unlock()
	return act(f, w, req)
}

// Reply answers with v as JSON, status 200: a value of the REST types
// (a *bq.Job, a *bq.QueryResponse…) or json.RawMessage.
func (r *Rule) Reply(v any) *Rule {
	return r.set(func(_ *Fake, w http.ResponseWriter, _ *Request) bool {
		writeJSON(w, http.StatusOK, v)
		return true
	})
}

// ErrReset, returned by a ReplyFunc, closes the connection with a TCP
// reset and no answer, as Reset does.
var ErrReset = errors.New("bqfake: reset the connection")

// ReplyFunc answers with what fn returns: a value as JSON with status 200,
// or an error (an *Error in BigQuery's error shape; ErrReset).
// fn returning nil, nil passes the request on to the next rule or the
// store.
func (r *Rule) ReplyFunc(fn func(*Request) (any, error)) *Rule {
	return r.set(func(_ *Fake, w http.ResponseWriter, req *Request) bool {
		v, err := fn(req)
		switch {
		case err == ErrReset:
			hijack(w, true)
		case err != nil:
			writeError(w, err)
		case v == nil:
			return false
		default:
			writeJSON(w, http.StatusOK, v)
		}
		return true
	})
}

// Rewrite lets the store do what the request asks and answers with what
// fn makes of the store's answer (a *bq.QueryResponse, a *bq.Job…); a
// store's error goes out as it is. For an answer that comes back before
// the work is done, say.
func (r *Rule) Rewrite(fn func(req *Request, answer any) any) *Rule {
	return r.set(func(f *Fake, w http.ResponseWriter, req *Request) bool {
		v, err := f.handle(req)
		if err != nil {
			writeError(w, err)
			return true
		}
		writeJSON(w, http.StatusOK, fn(req, v))
		return true
	})
}

// Handle answers with h as it is, for what no JSON answer can show (a body
// that arrives slowly, odd headers).
func (r *Rule) Handle(h http.HandlerFunc) *Rule {
	return r.set(func(_ *Fake, w http.ResponseWriter, req *Request) bool {
		h(w, req.HTTP)
		return true
	})
}

// Fail answers with BigQuery's error: status and reason.
func (r *Rule) Fail(status int, reason string) *Rule {
	return r.FailWith(&Error{Status: status, Reason: reason, Message: "injected " + reason})
}

// FailWith answers with e.
func (r *Rule) FailWith(e *Error) *Rule {
	return r.set(func(_ *Fake, w http.ResponseWriter, _ *Request) bool {
		writeError(w, e)
		return true
	})
}

// FailAfter lets the store do what the request asks (a job is inserted, a
// table patched) and then answers with BigQuery's error instead of the
// store's answer: an answer lost on its way back.
func (r *Rule) FailAfter(status int, reason string) *Rule {
	return r.set(func(f *Fake, w http.ResponseWriter, req *Request) bool {
		_, _ = f.handle(req)
		writeError(w, &Error{Status: status, Reason: reason, Message: "injected " + reason})
		return true
	})
}

// Drop closes the connection without an answer.
func (r *Rule) Drop() *Rule {
	return r.set(func(_ *Fake, w http.ResponseWriter, _ *Request) bool {
		hijack(w, false)
		return true
	})
}

// Reset closes the connection with a TCP reset ("connection reset by
// peer") and no answer.
func (r *Rule) Reset() *Rule {
	return r.set(func(_ *Fake, w http.ResponseWriter, _ *Request) bool {
		hijack(w, true)
		return true
	})
}

// Stall sends status 200 and the start of a body, prefix, and then nothing
// until the client gives up.
func (r *Rule) Stall(prefix string) *Rule {
	return r.set(func(_ *Fake, w http.ResponseWriter, req *Request) bool {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, prefix)
		w.(http.Flusher).Flush()
		<-req.HTTP.Context().Done()
		return true
	})
}

// Hold keeps each request the rule matches until the test calls Release
// (then the request goes on to the next rule or the store) or the client
// gives up (then it gets no answer). A hold never released is a BigQuery
// that hangs.
func (r *Rule) Hold() *Hold {
	h := &Hold{released: make(chan struct{}), changed: make(chan struct{}, 1), arrived: make(chan *Request, 1024)}
	r.f.mu.Lock()
	r.f.holds = append(r.f.holds, h)
	r.f.mu.Unlock()
	r.set(func(_ *Fake, _ http.ResponseWriter, req *Request) bool {
		return h.hold(req)
	})
	return h
}

// Hold is the state of a holding rule.
type Hold struct {
	released chan struct{}
	once     sync.Once
	changed  chan struct{}
	arrived  chan *Request

	mu             sync.Mutex
	started, ended int
}

func (h *Hold) hold(req *Request) bool {
	h.mu.Lock()
	h.started++
	h.mu.Unlock()
	select {
	case h.arrived <- req:
	default: // nobody reads: the log keeps it
	}
	h.notify()
	ctx := req.HTTP.Context()
	released := false
	select {
	case <-h.released:
		released = true
	case <-ctx.Done():
	}
	h.mu.Lock()
	h.ended++
	h.mu.Unlock()
	h.notify()
	return !released
}

func (h *Hold) notify() {
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// Release lets every held request, and every later one, go on.
func (h *Hold) Release() { h.once.Do(func() { close(h.released) }) }

// Arrived yields each held request as it arrives.
func (h *Hold) Arrived() <-chan *Request { return h.arrived }

// Started is how many requests the hold has taken.
func (h *Hold) Started() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.started
}

// Ended is how many held requests went on or were given up.
func (h *Hold) Ended() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ended
}

// WaitEnded returns once every request the hold took has ended (none is
// still held), or with ctx's error.
func (h *Hold) WaitEnded(ctx context.Context) error {
	for {
		h.mu.Lock()
		done := h.ended == h.started
		h.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-h.changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
