package observability

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: Shutdown
// must stop every exporter, reader and server Setup started.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
