package sqltext

// arena holds what the readers of one text allocate: the parts of the
// paths they read, in chunks (a text may name as many as it has bytes, and
// a slice each would be an allocation each), and the readers themselves,
// to read the next statement with (a text may have as many statements as
// it has bytes too).
type arena struct {
	// chunks hold the parts; the last is being filled. last is the path
	// allocated last.
	chunks  [][]string
	last    pathRef
	readers []*reader
	// body is the Statement of a procedure's body statement read last,
	// whose buffers the next one reuses (readBody).
	body Statement
}

// pathRef is where a path's parts are in an arena.
type pathRef struct{ chunk, off, n int32 }

// path returns room for a path of n parts, and makes it a.last. Its
// capacity is its length, so appending to it copies it first.
func (a *arena) path(n int) []string {
	c := len(a.chunks) - 1
	if c < 0 || n > cap(a.chunks[c])-len(a.chunks[c]) {
		size := 16
		if c >= 0 {
			size = min(2*cap(a.chunks[c]), 1024)
		}
		a.chunks = append(a.chunks, make([]string, 0, max(n, size)))
		c++
	}
	chunk := a.chunks[c]
	off := len(chunk)
	a.chunks[c] = chunk[:off+n]
	a.last = pathRef{chunk: int32(c), off: int32(off), n: int32(n)}
	return chunk[off : off+n : off+n]
}

// room returns the room left in the last chunk for a path, at least min
// parts (starting a chunk when there is less); take takes the first n of
// them (n may be 0).
func (a *arena) room(min int) []string {
	c := len(a.chunks) - 1
	if c < 0 || cap(a.chunks[c])-len(a.chunks[c]) < min {
		a.path(min)
		c = len(a.chunks) - 1
		a.chunks[c] = a.chunks[c][:len(a.chunks[c])-min]
		a.last = pathRef{}
	}
	chunk := a.chunks[c]
	return chunk[len(chunk):cap(chunk)]
}

func (a *arena) take(n int) []string {
	if n == 0 {
		return nil
	}
	return a.path(n)
}

// parts returns the path at ref.
func (a *arena) parts(ref pathRef) []string {
	return a.chunks[ref.chunk][ref.off : ref.off+ref.n : ref.off+ref.n]
}

// ref returns where path is: the path allocated last, or a copy of any
// other (a connection's name, split from a string).
func (a *arena) ref(path []string) pathRef {
	if last := a.last; len(path) > 0 && int(last.n) == len(path) && &a.chunks[last.chunk][last.off] == &path[0] {
		return last
	}
	copy(a.path(len(path)), path)
	return a.last
}

// reader returns a reader of toks, a new one or one released, with the
// room its last statement grew.
func (a *arena) reader(s *source, toks []token) *reader {
	var r *reader
	if n := len(a.readers); n > 0 {
		r, a.readers = a.readers[n-1], a.readers[:n-1]
	} else {
		r = &reader{}
	}
	r.reset(s, toks, a)
	r.lead = r.firstWord()
	return r
}

// reset makes r a new reader of toks, but for the room its slices grew.
// It writes only what differs from a new reader's: a text may have as many
// statements as it has bytes, and the reader is large
// (TestReaderResetIsNew holds it to every field).
func (r *reader) reset(s *source, toks []token, a *arena) {
	r.src, r.toks, r.arena = s, toks, a
	r.st = Statement{}
	r.known, r.sized, r.itemParen, r.exporting, r.pendingCall, r.lead, r.steps = false, false, false, false, 0, 0, 0
	r.frames = append(r.frames[:0], frame{})
	r.calls, r.openCalls, r.scopes, r.cases, r.decls = r.calls[:0], r.openCalls[:0], r.scopes[:0], r.cases[:0], r.decls[:0]
	r.queries, r.fromDecls, r.candidates, r.selecting = r.queries[:0], r.fromDecls[:0], r.candidates[:0], 0
	if r.pre != nil {
		r.pre = nil
	}
	if r.ctes != nil {
		r.ctes = nil
	}
	if r.latest != nil {
		r.latest = nil
	}
	r.parens = parenRun{}
	r.target, r.targetState = "", targetNone
	if r.seen.table != nil {
		r.seen = reasonSet{}
	}
	r.objs.reset()
}

// release takes back a reader whose statement has been read.
func (a *arena) release(r *reader) {
	a.readers = append(a.readers, r)
}
