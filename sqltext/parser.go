package sqltext

import "sync"

// parser is what one Parse uses only while it runs, kept
// for the next (parsers): the token buffer, the statements' spans and the
// readers, with the room they grew. A 1 MB text of one-byte tokens needs 8
// MB of them, and allocating and clearing that much memory for each text
// cost more than reading it (issue 28).
type parser struct {
	toks    []token
	spans   []span
	readers []*reader
}

var parsers = sync.Pool{New: func() any { return new(parser) }}

// lex is lex, into the parser's buffer, which it makes room in for a
// token per byte of src: no text has more, and the next text as long
// needs neither a count first nor memory (and the steps do not depend on
// the texts before).
func (p *parser) lex(src string, steps *int) (*source, []token, string) {
	if cap(p.toks) < len(src) && len(src) <= maxSQL {
		p.toks = make([]token, 0, len(src))
	}
	s, toks, incomplete := lexInto(p.toks, src, steps)
	p.toks = toks[:0]
	return s, toks, incomplete
}

// split is split, into the parser's buffer.
func (p *parser) split(s *source, toks []token, steps *int) []span {
	p.spans = split(s, toks, p.spans, steps, false)
	return p.spans
}

// release returns p to parsers, once nothing it holds is in use. Its
// readers keep no string of the text (which would keep it alive), and
// drop their slices of strings grown past maxKept elements.
func (p *parser) release() {
	for _, r := range p.readers {
		r.reset(nil, nil, nil)
		r.frames = r.frames[:0]
		r.calls, r.decls, r.pathBuf = forget(r.calls), forget(r.decls), forget(r.pathBuf)
		r.fromDecls, r.candidates = forget(r.fromDecls), forget(r.candidates)
	}
	parsers.Put(p)
}

// maxKept bounds the slices of strings a parser keeps for the next text.
const maxKept = 1024

// forget empties s, clearing the strings its room holds, or drops it when
// it is longer than maxKept.
func forget[E any](s []E) []E {
	if cap(s) > maxKept {
		return nil
	}
	clear(s[:cap(s)])
	return s[:0]
}
