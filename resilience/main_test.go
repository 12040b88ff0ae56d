package resilience

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: a
// retry loop, a cache refresh or an HTTP connection that outlives its call.
// Every test that starts a server closes it and drops idle connections, so
// no goroutine is ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
