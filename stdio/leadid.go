package stdio

import (
	"bytes"
	"encoding/json"
)

// idScanBytes is how much of a refused line's beginning is read for its
// id. Clients write "jsonrpc", "id" and "method" before "params", so a
// request's id sits in its first hundred bytes; the bound keeps the scan
// cheap on a line that was refused for being huge or deeply nested.
const idScanBytes = 1024

// leadingRequestID reads the id of a request from the beginning of a line
// refused before it could be parsed (too long, nested too deep), so the
// client's pending call gets its error instead of waiting for a timeout.
//
// It scans the top-level members of the object that starts the line,
// within idScanBytes and without recursion, and trusts only what it has
// seen whole: an "id" that is a string or an int64 integer and a "method"
// that is a string. Anything else gives nil (the reply's id is null): no
// "method" seen (a response's id belongs to the server's own numbering,
// and echoing it could answer the wrong call), a "result" or "error"
// member, a member name with an escape (it could spell any of these), a
// repeated "id", or a line that is not an object.
func leadingRequestID(line []byte) json.RawMessage {
	s := &scanner{b: line[:min(len(line), idScanBytes)]}
	if !s.consume('{') {
		return nil
	}
	var id json.RawMessage
	method := false
	for {
		key, ok := s.str()
		if !ok || bytes.IndexByte(key, '\\') >= 0 || !s.consume(':') {
			return nil
		}
		s.ws()
		switch string(key[1 : len(key)-1]) {
		case "id":
			v, ok := s.scalar()
			if !ok || len(id) > 0 || !validID(v) || !json.Valid(v) {
				return nil
			}
			id = bytes.Clone(v)
		case "method":
			if _, ok := s.str(); !ok {
				return nil
			}
			method = true
		case "result", "error":
			return nil
		default:
			if !s.skipValue() {
				return readyID(id, method)
			}
		}
		// A member ends at a comma, the closing brace or the window's
		// end; anything else means the line is not what it seemed.
		if s.consume(',') {
			continue
		}
		if s.i < len(s.b) && s.b[s.i] != '}' {
			return nil
		}
		return readyID(id, method)
	}
}

// readyID is id when the scan saw both a usable id and a method.
func readyID(id json.RawMessage, method bool) json.RawMessage {
	if len(id) > 0 && method {
		return id
	}
	return nil
}

// scanner walks a byte slice; every method stops at its end.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\r' || s.b[s.i] == '\n') {
		s.i++
	}
}

// consume skips white space and then c, if c is next.
func (s *scanner) consume(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a whole string, quotes included, after white space.
func (s *scanner) str() ([]byte, bool) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			j++
		case '"':
			v := s.b[s.i : j+1]
			s.i = j + 1
			return v, true
		}
	}
	return nil, false
}

// scalar reads a whole string or number: a number ends at a delimiter that
// is inside the window, so a cut-off number is never taken for a whole one.
func (s *scanner) scalar() ([]byte, bool) {
	if s.i < len(s.b) && s.b[s.i] == '"' {
		return s.str()
	}
	j := s.i
	for j < len(s.b) && bytes.IndexByte([]byte("+-.0123456789eE"), s.b[j]) >= 0 {
		j++
	}
	if j == s.i || j == len(s.b) {
		return nil, false
	}
	v := s.b[s.i:j]
	s.i = j
	return v, true
}

// skipValue moves past one value of any kind, counting brackets rather
// than recursing; false when the value does not end inside the window.
func (s *scanner) skipValue() bool {
	depth := 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			if _, ok := s.str(); !ok {
				return false
			}
			if depth == 0 {
				return true
			}
			continue
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return true // the end of the enclosing object: an empty value
			}
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return true
		}
		s.i++
	}
	return false
}
