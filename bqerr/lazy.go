package bqerr

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles pattern at its first use, not at start: the
// error-mapping patterns serve only when an error is mapped, and the
// redaction patterns only when Redact meets text that is not plain.
// Compiling them at package init cost every start about 370 KB and 3,000
// allocations (bounded repetitions such as {1,64} unroll into many
// instructions).
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
