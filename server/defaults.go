package server

import (
	"regexp"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// argumentDefaults are the defaults that flags give tool arguments an
// agent leaves out. The input schemas state them, so an agent reads the
// values in effect rather than the ones a default configuration would have.
type argumentDefaults struct {
	// maxRows (--default-max-rows) is maxRows of execute_sql,
	// get_query_results and preview_table. Zero: as the services document it.
	maxRows int
	// maxWait (--max-wait) bounds waitSeconds of execute_sql and
	// get_query_results: the default wait is the services' own, or maxWait
	// when that is shorter. Zero: as the services document it.
	maxWait time.Duration
}

// statedDefault is how the services' descriptions state a default: "Default
// 100." or "(default 45)".
var statedDefault = regexp.MustCompile(`([Dd]efault )(\d+)`)

// apply rewrites, in t's input schema, the default that the description of
// each argument a flag governs states. The wording stays the service's (its
// struct tag); only the number comes from the flags. Tools returns fresh
// schemas on every call, so one server's flags never reach another's.
func (d argumentDefaults) apply(t *mcp.Tool) {
	in, ok := t.InputSchema.(*jsonschema.Schema)
	if !ok {
		return
	}
	restate := func(prop string, value func(documented int) int) {
		p := in.Properties[prop]
		if p == nil {
			return
		}
		p.Description = statedDefault.ReplaceAllStringFunc(p.Description, func(m string) string {
			parts := statedDefault.FindStringSubmatch(m)
			documented, _ := strconv.Atoi(parts[2]) // \d+: a number
			return parts[1] + strconv.Itoa(value(documented))
		})
	}
	if d.maxRows > 0 {
		restate("maxRows", func(int) int { return d.maxRows })
	}
	if d.maxWait > 0 {
		wait := int((d.maxWait + time.Second - 1) / time.Second) // whole seconds, rounded up
		restate("waitSeconds", func(documented int) int { return min(documented, wait) })
	}
}
