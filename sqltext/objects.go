package sqltext

// object reads the path at i (after IF [NOT] EXISTS) as an object of kind
// and returns the index after it. A position with no path is left alone.
func (r *reader) object(toks []token, i int, kind ObjectKind, write bool) int {
	for i < len(toks) && (r.isWord(toks, i, "IF") || r.isWord(toks, i, "NOT") || r.isWord(toks, i, "EXISTS")) {
		r.steps++
		i++
	}
	if i < len(toks) && r.isReserved(toks[i]) {
		return i
	}
	path, next := r.readPath(toks, i)
	if len(path) == 0 {
		return i
	}
	r.add(kind, path, write)
	return next
}

// add records an object, or an INFORMATION_SCHEMA path: the path in the
// arena (a copy, when path is not the one allocated last).
func (r *reader) add(kind ObjectKind, path []string, write bool) {
	if hasInformationSchema(path) {
		r.st.InformationSchema = append(r.st.InformationSchema, r.arena.parts(r.arena.ref(path)))
		return
	}
	if len(path) == 1 && r.ctes[foldName(path[0])] {
		return
	}
	r.objs.add(objectRec{path: r.arena.ref(path), kind: kind, write: write})
}

// objectRec is an Object as the reader collects them, without a pointer:
// its path is in the arena.
type objectRec struct {
	path  pathRef
	kind  ObjectKind
	write bool
}

// objects returns r.objs as Objects, or nil for none.
func (r *reader) objects() []Object {
	if r.objs.n == 0 {
		return nil
	}
	objects := make([]Object, 0, r.objs.n)
	for _, c := range r.objs.chunks[:r.objs.used] {
		for _, o := range c {
			r.steps++
			objects = append(objects, Object{Kind: o.kind, Path: r.arena.parts(o.path), Write: o.write})
		}
	}
	return objects
}

// objectRecs is a list of objectRecs in chunks, which grows without
// copying and empties (reset) without freeing them.
type objectRecs struct {
	// chunks[:used] hold the records; n counts them.
	chunks [][]objectRec
	used   int
	n      int
}

func (l *objectRecs) add(o objectRec) {
	if l.used == 0 || len(l.chunks[l.used-1]) == cap(l.chunks[l.used-1]) {
		if l.used == len(l.chunks) {
			size := 8
			if l.used > 0 {
				size = min(2*cap(l.chunks[l.used-1]), 1024)
			}
			l.chunks = append(l.chunks, make([]objectRec, 0, size))
		}
		l.chunks[l.used] = l.chunks[l.used][:0]
		l.used++
	}
	l.chunks[l.used-1] = append(l.chunks[l.used-1], o)
	l.n++
}

// reset empties the list, keeping its chunks.
func (l *objectRecs) reset() { l.used, l.n = 0, 0 }

// elementList reports whether the '(' at i opens a property graph's list
// of elements: NODE TABLES (…) or EDGE TABLES (…) of CREATE PROPERTY GRAPH,
// at the top level or in a procedure's body.
func (r *reader) elementList(toks []token, i int) bool {
	return i >= 2 && r.isWord(toks, i-1, "TABLES") && (r.isWord(toks, i-2, "NODE") || r.isWord(toks, i-2, "EDGE"))
}

// element reads the table a property graph element at i is built on (the
// path that starts each entry of NODE TABLES and EDGE TABLES): a table read
// like any other, though the graph it builds does not exist yet. The rest
// of the entry (AS alias, KEY, SOURCE/DESTINATION KEY … REFERENCES node,
// LABEL, PROPERTIES) is read as the walk reads any text: REFERENCES is a
// source clause. An entry that starts with anything but a path (an empty
// list's ')' aside) is unplaced: its table cannot be checked.
func (r *reader) element(toks []token, i int) int {
	if next := r.object(toks, i, Table, false); next > i {
		return next
	}
	if !toks[i].isPunct(')') {
		r.unplaced("a property graph element names no table this server can place")
	}
	return i
}
