package sqltext

import (
	"slices"
	"strings"
)

// callState is what the reader knows of a call whose '(' opened a frame:
// the function, which argument the scan is in, and whether the connection
// the function needs has been read.
type callState struct {
	name string
	fn   function
	// arg is the index of the argument being read; argStart is set on
	// its first token.
	arg      int
	argStart bool
	// connection is set once the call's connection was read (or reported
	// as unplaced).
	connection bool
	// keys counts the Cloud KMS keys (or DLP_KEY_CHAIN keys) read
	// (reachout.go).
	keys uint8
}

// call handles a call of path in an expression: a persistent routine when
// it is qualified and not one of BigQuery's own. A function of BigQuery's
// namespaces must be one the inventory knows (builtinFunctions, or
// knownFunctions, whose arguments are read), and so is an unqualified one
// the inventory says reaches outside BigQuery.
func (r *reader) call(path []string) {
	p := path
	if len(p) > 1 && strings.EqualFold(p[0], "SAFE") {
		p = p[1:]
	}
	// Names are looked up in a buffer: a name becomes a string only for a
	// reason or a known call.
	var buf [64]byte
	switch {
	case len(p) == 1:
		// A built-in or temporary function, or one of the default
		// dataset's.
		if fn, ok := knownFunctions[string(upperInto(buf[:0], p[0]))]; ok && !fn.table {
			r.open(strings.ToUpper(p[0]), fn)
		}
		return
	case len(p) == 2 && builtinNamespaces[upper(p[0])]:
		name := upperInto(append(upperInto(buf[:0], p[0]), '.'), p[1])
		if fn, ok := knownFunctions[string(name)]; ok {
			r.open(string(name), fn)
			return
		}
		if !builtinFunctions[string(name)] {
			r.unplaced("the function " + string(name) + " is not one this server can check")
		}
		return
	}
	r.add(Routine, path, false)
}

// upperInto appends w, upper-cased (ASCII), to b.
func upperInto(b []byte, w string) []byte {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// tableCall handles a call in a from-item position: a table-valued
// function. A built-in one must be in the inventory; a qualified name of
// no built-in namespace is a persistent table function. What the reader
// does not know it does not guess at: an unknown built-in's arguments may
// name objects in ways it cannot read.
func (r *reader) tableCall(path []string) {
	name := strings.ToUpper(strings.Join(path, "."))
	if fn, ok := knownFunctions[name]; ok && fn.table {
		r.open(name, fn)
		return
	}
	if len(path) == 1 || len(path) == 2 && builtinNamespaces[upper(path[0])] {
		r.unplaced("the table-valued function " + name + " is not one this server can check")
		return
	}
	r.add(Routine, path, false)
}

// open makes fn the call whose arguments the next '(' opens.
func (r *reader) open(name string, fn function) {
	switch fn.args {
	case argsObjectRef:
		r.unplaced(name + " reads Cloud Storage through the connection an ObjectRef names, which only the data knows")
	case argsEarthEngine:
		r.unplaced(name + " reads an Earth Engine raster, outside BigQuery's datasets")
	}
	r.calls = append(grow(r.calls), callState{name: name, fn: fn})
	r.pendingCall = int32(len(r.calls))
}

// callArgument reads the token at i when it starts the connection argument
// of the call whose frame is on top (EXTERNAL_QUERY('conn', …),
// OBJ.MAKE_REF(uri, 'conn')). It returns where to go on and whether it
// consumed the argument.
func (r *reader) callArgument(toks []token, i int) (int, bool) {
	c := r.topCall()
	if c == nil || !c.argStart {
		return 0, false
	}
	c.argStart = false
	switch c.fn.args {
	case argsKMSKeys:
		return r.kmsArgument(toks, i, c)
	case argsKeyChain:
		r.keyChainArgument(toks, i, c)
		return 0, false
	}
	if c.fn.args == argsGraphAt && c.arg == 0 && !c.connection {
		return r.graphArgument(toks, i, c)
	}
	if c.fn.args != argsConnectionAt || c.arg != c.fn.connectionArg || c.connection {
		return 0, false
	}
	if toks[i].isPunct(')') || toks[i].isPunct(',') || namedArgument(toks, i) {
		return 0, false // no argument here, or a named one (connection_id => …)
	}
	path, next, ok := r.connectionName(toks, i, false)
	if ok && next < len(toks) && (toks[next].isPunct(',') || toks[next].isPunct(')')) {
		r.add(Connection, path, false)
		c.connection = true
		return next, true
	}
	r.unplaced("the connection argument of " + c.name + " is not a literal name")
	c.connection = true
	return 0, false
}

// graphArgument reads the graph a call's first argument names
// (GRAPH_EXPAND('ds.g'), GRAPH_EXPAND(ds.g)): a string literal or a path,
// and nothing else, or the graph is unplaced.
func (r *reader) graphArgument(toks []token, i int, c *callState) (int, bool) {
	c.connection = true
	var path []string
	next := i
	if v, after, ok := stringAt(r.src, toks, i, &r.steps); ok {
		path, next = strings.Split(v, "."), after
	} else {
		path, next = r.readPath(toks, i)
	}
	if len(path) == 0 || slices.Contains(path, "") || next < len(toks) && !toks[next].isPunct(',') && !toks[next].isPunct(')') {
		r.unplaced("the graph " + c.name + " reads is not a literal name")
		return 0, false
	}
	r.add(Graph, path, false)
	return next, true
}

// endCall checks, as a call's ')' closes its frame, that a function that
// reaches outside BigQuery named the connection it does so through.
func (r *reader) endCall(c *callState) {
	if c != nil {
		r.endReach(c)
	}
	if c == nil || c.connection {
		return
	}
	switch c.fn.args {
	case argsConnectionAt:
		r.unplaced(c.name + " names no connection this server can read")
	case argsConnectionNamed:
		r.unplaced(c.name + " without connection_id reaches a model endpoint with the caller's credentials, outside the dataset allowlist")
	case argsGraphAt:
		r.unplaced(c.name + " names no graph this server can read")
	}
}

// connection reads the connection named at i (WITH CONNECTION x, where
// paths name it; connection_id => 'x', where only a string does) and
// returns the index after it.
func (r *reader) connection(toks []token, i int, paths bool) int {
	if c := r.topCall(); c != nil {
		c.connection = true
	}
	path, next, ok := r.connectionName(toks, i, paths)
	if !ok {
		r.unplaced("a connection is named by something other than a literal name")
		return i
	}
	r.add(Connection, path, false)
	return next
}

// connectionName reads a connection's name at i: a string literal
// ('us.conn', 'p.us.conn', 'projects/p/locations/us/connections/conn'),
// or where paths is set a path (`p.us.conn`, us.conn) or DEFAULT. In a
// function's argument a path would be a column, whose value only the data
// knows.
func (r *reader) connectionName(toks []token, i int, paths bool) ([]string, int, bool) {
	if i >= len(toks) {
		return nil, i, false
	}
	if paths && r.isWord(toks, i, "DEFAULT") {
		return []string{"DEFAULT"}, i + 1, true
	}
	if v, next, ok := stringAt(r.src, toks, i, &r.steps); ok {
		if rest, ok := strings.CutPrefix(v, "projects/"); ok {
			// The resource name form: projects/p/locations/l/connections/c.
			parts := strings.Split(rest, "/")
			if len(parts) != 5 || parts[1] != "locations" || parts[3] != "connections" {
				return nil, i, false
			}
			return []string{parts[0], parts[2], parts[4]}, next, true
		}
		parts := strings.Split(v, ".")
		for _, p := range parts {
			r.steps++
			if p == "" {
				return nil, i, false
			}
		}
		return parts, next, true
	}
	if !paths {
		return nil, i, false
	}
	path, next := r.readPath(toks, i)
	return path, next, len(path) > 0
}

// namedArgument reports whether a named argument (name => value) starts
// at i.
func namedArgument(toks []token, i int) bool {
	return i+2 < len(toks) && toks[i].kind() == Word && toks[i+1].isPunct('=') && toks[i+2].isPunct('>') && toks[i+2].start == toks[i+1].end()
}

// stringAt decodes the string literal at i (r'…' raw, or with escapes),
// and returns its value and the index after it. Bytes literals and
// anything else are not strings. It adds its work to *steps.
func stringAt(src *source, toks []token, i int, steps *int) (string, int, bool) {
	raw := false
	if i+1 < len(toks) && toks[i].kind() == Word && (src.text(toks[i]) == "r" || src.text(toks[i]) == "R") &&
		toks[i+1].kind() == String && toks[i+1].start == toks[i].end() {
		raw = true
		i++
	}
	if i >= len(toks) || toks[i].kind() != String {
		return "", i, false
	}
	s := src.text(toks[i])
	q, n := s[0], 1
	if len(s) >= 6 && s[1] == q && s[2] == q {
		n = 3
	}
	if len(s) < 2*n {
		return "", i, false
	}
	body := s[n : len(s)-n]
	if raw {
		return body, i + 1, true
	}
	v, ok := unescape(body, steps)
	return v, i + 1, ok
}

// exportURI reads an EXPORT DATA or EXPORT MODEL uri option's value at i
// and returns the index after it.
func (r *reader) exportURI(toks []token, i int) int {
	v, next, ok := stringAt(r.src, toks, i, &r.steps)
	if !ok || next < len(toks) && !toks[next].isPunct(',') && !toks[next].isPunct(')') {
		r.unplaced("an EXPORT's uri is not a string literal")
		return i
	}
	r.st.ExportURIs = append(r.st.ExportURIs, v)
	return next
}

// finish checks what the scan can only judge at the statement's end.
func (r *reader) finish() {
	if r.exporting && len(r.st.ExportURIs) == 0 {
		r.unplaced("an EXPORT names no destination uri this server can read")
	}
	// The statement's own reason replaces those of its options (uris,
	// hive_partition_uri_prefix), which say the same.
	switch r.st.Kind {
	case "CREATE EXTERNAL TABLE":
		r.st.External = append(r.st.External[:0], "an external table reads files outside BigQuery's datasets")
	case "LOAD DATA":
		r.st.External = append(r.st.External[:0], "LOAD DATA reads files outside BigQuery's datasets")
	}
}
