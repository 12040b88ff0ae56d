package bqerr

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles pattern at its first use, not at start: these
// patterns serve only when an error is mapped, and compiling them at package
// init cost every start 180 KB and 1,700 allocations (bounded repetitions
// such as {1,64} unroll into many instructions). The redaction patterns
// (redact.go) stay compiled at init: every log line, the first included,
// passes through them.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
