package sqltext

import (
	"slices"
)

// span is one statement's tokens, toks[start:end].
type span struct{ start, end int32 }

func (sp span) of(toks []token) []token { return toks[sp.start:sp.end] }

// split groups the readers' tokens into statements separated by ';',
// dropping empty ones (a CREATE PROCEDURE is one statement, with the
// semicolons of its BEGIN … END body inside it), returning their spans
// (a text may have as many statements as it has bytes: a span holds no
// pointer, and is a third of a slice's size) in buf's room. It adds one
// step per token to *steps. A semicolon inside a block (BEGIN … END,
// CASE … END) ends no statement; blocks are counted in a CREATE PROCEDURE
// statement, or everywhere when toks is a block's body.
func split(s *source, toks []token, buf []span, steps *int, body bool) []span {
	stmts := buf[:0]
	start := 0
	procedure := false
	var b blocks
	for i, t := range toks {
		*steps++
		if i == start {
			procedure, b = body || createsProcedure(s, toks[start:]), blocks{}
		}
		if procedure {
			b.step(s, toks, i)
		}
		if t.isPunct(';') && b.depth == 0 {
			if i > start {
				stmts = append(grow(stmts), span{int32(start), int32(i)})
			}
			start = i + 1
		}
	}
	if start < len(toks) {
		stmts = append(stmts, span{int32(start), int32(len(toks))})
	}
	return stmts
}

// grow returns s with room for one more element, doubling it when it is
// full. append grows a long slice by about a quarter at a time, which
// copies a slice of n elements some 4n times in all; the slices an input
// can make as long as it likes (statements, frames, path parts, objects)
// double, to copy at most n.
func grow[S ~[]E, E any](s S) S {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 4))
}
