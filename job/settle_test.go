package job

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestFollowerStopsWhenIdleAndOnClose: the follower's one goroutine exits
// once no job is left to follow, and Close stops it even while a jobs.get
// hangs; after Close nothing is followed.
func TestFollowerStopsWhenIdleAndOnClose(t *testing.T) {
	var mu sync.Mutex
	done, settledJobs := false, 0
	hanging := make(chan struct{}, 1)
	w := newFollower(FollowTiming{Every: 10 * time.Millisecond, First: time.Nanosecond}, func(ctx context.Context, _ Ref) (*Status, error) {
		mu.Lock()
		d := done
		mu.Unlock()
		if d {
			return &Status{State: "DONE"}, nil
		}
		select {
		case hanging <- struct{}{}:
		default:
		}
		<-ctx.Done() // a jobs.get that hangs until its deadline or Close
		return nil, ctx.Err()
	}, func(context.Context, followed, Status) {
		mu.Lock()
		settledJobs++
		mu.Unlock()
	})
	running := func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.running
	}

	mu.Lock()
	done = true
	mu.Unlock()
	if !w.add(followed{job: Ref{ID: "a"}, charge: Charge{Reservation: "r"}}) {
		t.Fatal("add refused a job")
	}
	exited := make(chan struct{})
	go func() { w.wg.Wait(); close(exited) }() // the goroutine has returned
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the follower did not stop once its only job was settled")
	}
	mu.Lock()
	n := settledJobs
	mu.Unlock()
	if running() || n != 1 || w.has("a") {
		t.Fatalf("after its only job was settled: running %v, %d settled", running(), n)
	}

	mu.Lock()
	done = false
	mu.Unlock()
	w.add(followed{job: Ref{ID: "b"}, charge: Charge{Reservation: "r"}})
	select {
	case <-hanging: // the goroutine is inside the hanging jobs.get
	case <-time.After(5 * time.Second):
		t.Fatal("the follower never looked at its job")
	}
	closed := make(chan struct{})
	go func() { w.close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("close did not stop the follower")
	}
	if running() {
		t.Error("the follower still runs after close")
	}
	if w.add(followed{job: Ref{ID: "c"}}) {
		t.Error("a closed follower took a job")
	}
}
