package redistest

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// ClockDaysEnv moves every test clock built by Today by that many days
// (negative: into the past). CI runs the Redis-backed tests once with it
// set far off (make unit-clock), as though they ran long after the day they
// were written, so a test whose verdict needs its fake clock to agree with
// a real one (Redis's, the process's) fails the day it is written.
const ClockDaysEnv = "BQMCP_TEST_CLOCK_DAYS"

// Today is hour o'clock UTC on the day the test runs, moved by
// BQMCP_TEST_CLOCK_DAYS days when that is set. Fake clocks start here, not
// at a fixed date.
func Today(t testing.TB, hour int) time.Time {
	t.Helper()
	days := 0
	if v := os.Getenv(ClockDaysEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s=%q is not a number of days: %v", ClockDaysEnv, v, err)
		}
		days = n
	}
	y, m, d := time.Now().UTC().Date()
	return time.Date(y, m, d+days, hour, 0, 0, 0, time.UTC)
}
