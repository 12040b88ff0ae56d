package sqltext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// TokenKind classifies the token shapes the readers care about.
type TokenKind uint8

const (
	// Word is an unquoted identifier, keyword or number: [A-Za-z0-9_]+.
	// String prefixes (r, b, rb, br) are words too: they do not change
	// where a literal ends.
	Word TokenKind = iota + 1
	// String is a string or bytes literal in any quoting, raw or not.
	String
	// QuotedIdent is a `backtick-quoted` identifier.
	QuotedIdent
	// Punct is any other single character (one UTF-8 sequence).
	Punct
)

// Token is one significant token.
type Token struct {
	Kind       TokenKind
	Start, End int
	// Text is the source from Start to End.
	Text string
	// Value is a quoted identifier's name as BigQuery reads it (backticks
	// removed, escapes decoded); for every other kind it is Text.
	Value string
	// BadEscape is set on a quoted identifier whose escapes BigQuery does
	// not accept; its Value is then unusable.
	BadEscape bool
}

// IsPunct reports whether t is the punctuation c.
func (t Token) IsPunct(c byte) bool {
	return t.Kind == Punct && len(t.Text) == 1 && t.Text[0] == c
}

// IsWord reports whether t is the unquoted word w, in any case.
func (t Token) IsWord(w string) bool {
	return t.Kind == Word && strings.EqualFold(t.Text, w)
}

// token is a Token as the readers hold it, in eight bytes: where it starts
// in the source, its kind, flags and length. It holds no pointer, so a
// slice of a million of them (a 1 MB text of one-byte tokens) is neither
// scanned by the garbage collector nor filled through write barriers, as
// a Token's two strings are, and it is a quarter of a Token's size (issue
// 28). Its text and name are the source's (source.text, source.value).
type token struct {
	start int32
	// meta holds the kind (metaKind), the flags and, from bit sizeShift,
	// the length; for punctuation, the length (1 to 4) and, above its
	// three bits, the byte of a one-byte punctuation.
	meta uint32
}

const (
	metaKind = 1<<3 - 1
	// flagBad is Token.BadEscape.
	flagBad = 1 << 3
	// flagNamed is set on a quoted identifier whose name has escapes:
	// source.names holds it, decoded. flagEmpty is set on one whose
	// name is "" (an escape BigQuery does not accept). A quoted
	// identifier with neither is named by the text between its
	// backticks.
	flagNamed = 1 << 4
	flagEmpty = 1 << 5
	sizeShift = 9
	// maxTokenLen is the longest token: lex reads no text longer.
	maxTokenLen = 1<<(32-sizeShift) - 1
)

func newToken(kind TokenKind, start, end int) token {
	return token{start: int32(start), meta: uint32(kind) | uint32(end-start)<<sizeShift}
}

func newPunct(start, n int, c byte) token {
	return token{start: int32(start), meta: uint32(Punct) | (uint32(c)<<3|uint32(n))<<sizeShift}
}

func (t token) kind() TokenKind { return TokenKind(t.meta & metaKind) }

// bad is Token.BadEscape.
func (t token) bad() bool { return t.meta&flagBad != 0 }

func (t token) end() int32 {
	n := t.meta >> sizeShift
	if t.kind() == Punct {
		n &= 7
	}
	return t.start + int32(n)
}

// isPunct reports whether t is the one-byte punctuation c (c != 0).
func (t token) isPunct(c byte) bool {
	return t.meta == uint32(Punct)|(uint32(c)<<3|1)<<sizeShift
}

// source is the text that tokens point into, with the names of its
// quoted identifiers that hold escapes, decoded once by lex, by where they
// start.
type source struct {
	sql   string
	names map[int32]string
	// lexed is set on a source lex made, whose words are ASCII: a word
	// of another length than w is not w.
	lexed bool
	// bad is set when a token has flagBad.
	bad bool
}

// text is Token.Text.
func (s *source) text(t token) string { return s.sql[t.start:t.end()] }

// value is Token.Value.
func (s *source) value(t token) string {
	switch {
	case t.kind() != QuotedIdent:
		return s.text(t)
	case t.meta&flagNamed != 0:
		return s.names[t.start]
	case t.meta&flagEmpty != 0:
		return ""
	}
	return quotedBody(s.text(t))
}

// quotedBody is a quoted identifier's text without its backticks (an
// unterminated one has no closing backtick).
func quotedBody(text string) string { return strings.TrimSuffix(text[1:], "`") }

// isWord is Token.IsWord.
func (s *source) isWord(t token, w string) bool {
	if t.kind() != Word || s.lexed && t.meta>>sizeShift != uint32(len(w)) {
		return false
	}
	return strings.EqualFold(s.text(t), w)
}

// token returns t as a Token.
func (s *source) token(t token) Token {
	return Token{Kind: t.kind(), Start: int(t.start), End: int(t.end()), Text: s.text(t), Value: s.value(t), BadEscape: t.bad()}
}

// Lex tokenises GoogleSQL, dropping whitespace and comments. It follows
// BigQuery's lexer (ZetaSQL's flex_tokenizer.l) on every rule that decides
// where a token ends:
//
//   - "--" and "#" comments run to the next '\n' or '\r'; "/* */" comments
//     do not nest.
//   - Single-line literals ('…' and "…") may not contain a raw newline;
//     triple-quoted literals may, and end at the first unescaped run of
//     three quotes.
//   - In every kind of literal and in `quoted identifiers`, a backslash and
//     the character after it are one unit, even in raw strings (BigQuery's
//     raw strings keep the backslash but the quote still does not close).
//
// SQL that ends inside a literal, identifier or comment, or a single-line
// literal broken by a newline, yields a non-empty agent-safe reason. BigQuery
// rejects such SQL too, and a reader that guessed where the construct ends
// could disagree with BigQuery about where the statement ends. The tokens
// read so far are still returned; an unterminated literal or identifier
// becomes a final token that runs to the end of the input.
//
// Lex takes time linear in len(src) whatever the input (issue 28): every
// byte is looked at a bounded number of times. A text longer than 8 MiB,
// twice the most BigQuery accepts (maxSQL), is refused whole: no tokens and
// a reason.
func Lex(src string) (toks []Token, incomplete string) {
	var steps int
	s, compact, incomplete := lex(src, &steps)
	toks = make([]Token, len(compact))
	for i, t := range compact {
		toks[i] = s.token(t)
	}
	return toks, incomplete
}

// maxSQL is the longest text lex reads (8 MiB), so that no token is
// longer than maxTokenLen. It refuses nothing BigQuery runs: BigQuery
// refuses a query text longer than 1,024K characters, at most 4 MiB of
// UTF-8 ("The query is too large. The maximum standard SQL query length is
// 1024.00K characters, including comments and white space characters";
// its quotas page, "Maximum unresolved GoogleSQL query length"), and the
// server refuses more than 1 MB before it parses (query.maxSQLBytes).
const maxSQL = maxTokenLen

// lex is Lex, returning the readers' tokens and the source they point
// into, and adding to *steps one step per iteration of each of its loops
// and per byte a library call scans. The count is how tests hold the
// lexer to linear work without a clock (TestReaderWorkIsLinear).
//
// It lexes twice: the first pass only counts the tokens, so that the
// second fills a slice of exactly that length. A text of one-byte tokens
// ("((((…") has as many tokens as bytes, and growing the slice as it
// fills would allocate, clear and copy it again and again.
func lex(src string, steps *int) (s *source, toks []token, incomplete string) {
	return lexInto(nil, src, steps)
}

// lexInto is lex, into buf when it has room for a token per byte of src
// (a token is at least a byte), as a parser's has. Otherwise it counts the
// tokens first and allocates exactly as many.
func lexInto(buf []token, src string, steps *int) (s *source, toks []token, incomplete string) {
	s = &source{sql: src, lexed: true}
	if len(src) > maxSQL {
		*steps++
		return s, buf[:0], "the SQL is longer than BigQuery accepts (1,024K characters)"
	}
	if cap(buf) < len(src) {
		count := tokenSink{counting: true}
		count.lex(src, steps)
		buf = make([]token, 0, count.n)
	}
	fill := tokenSink{toks: buf[:0], src: s}
	incomplete = fill.lex(src, steps)
	return s, fill.toks, incomplete
}

// tokenSink receives one pass of lex's tokens.
type tokenSink struct {
	// counting is set on the counting pass, which keeps no tokens but the
	// last two (for afterPathSeparator), and decodes no quoted names.
	counting bool
	// n is the number of tokens so far.
	n          int
	toks       []token
	prev, last token
	// src collects the decoded names of the filling pass; scratch is the
	// buffer they are decoded in.
	src     *source
	scratch []byte
}

func (s *tokenSink) add(t token) {
	s.n++
	if s.counting {
		s.prev, s.last = s.last, t
		return
	}
	s.toks = append(s.toks, t)
}

// addQuoted adds the literal or quoted identifier src[start:end], quoted
// with q; bad marks an unterminated quoted identifier.
func (s *tokenSink) addQuoted(src string, start, end int, q byte, bad bool, steps *int) {
	if s.counting || q != '`' {
		s.add(newToken(String, start, end))
		return
	}
	t := newToken(QuotedIdent, start, end)
	body := quotedBody(src[start:end])
	v, ok := unescapeInto(&s.scratch, body, steps)
	switch {
	case v == "":
		t.meta |= flagEmpty
	case v != body:
		// Escapes were decoded (a name without any is its body).
		if s.src.names == nil {
			s.src.names = map[int32]string{}
		}
		s.src.names[int32(start)] = v
		t.meta |= flagNamed
	}
	if !ok || v == "" || bad {
		t.meta |= flagBad
		s.src.bad = true
	}
	s.add(t)
}

// lex runs one pass of lex and returns its incomplete reason.
func (s *tokenSink) lex(src string, steps *int) (incomplete string) {
	for i := 0; i < len(src); {
		*steps++
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\b':
			i++
		case c == '#' || (c == '-' && strings.HasPrefix(src[i:], "--")):
			j := skipLineComment(src, i)
			*steps += j - i
			i = j
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				*steps += len(src) - i
				return "the SQL is incomplete: a /* comment is not closed with */"
			}
			*steps += end
			i += 2 + end + 2
		case c == '\'' || c == '"' || c == '`':
			end, reason := scanQuoted(src, i, steps)
			if reason != "" {
				s.addQuoted(src, i, len(src), c, c == '`', steps)
				return reason
			}
			s.addQuoted(src, i, end, c, false, steps)
			i = end
		case isWordByte(c):
			j := i + 1
			for ; j < len(src) && isWordByte(src[j]); j++ {
				*steps++
			}
			if isDigit(c) && !s.afterPathSeparator(i) {
				j = scanNumber(src, i, j, steps)
			}
			s.add(newToken(Word, i, j))
			i = j
		case c >= utf8.RuneSelf:
			// Unicode whitespace (e.g. a no-break space pasted from a
			// document) separates tokens in BigQuery too; anything else
			// is a one-rune token that BigQuery will reject or use as it
			// likes, but never as a string or comment delimiter.
			r, n := utf8.DecodeRuneInString(src[i:])
			if !unicode.IsSpace(r) {
				s.add(newPunct(i, n, 0))
			}
			i += n
		default:
			s.add(newPunct(i, 1, c))
			i++
		}
	}
	return ""
}

// afterPathSeparator reports whether a word starting at i continues a
// path: it follows a '.' (ds.2024) or a '-' that touches a word before it
// (my-proj-123.ds.t).
func (s *tokenSink) afterPathSeparator(i int) bool {
	n := s.n
	if n == 0 {
		return false
	}
	prev, last := s.prev, s.last
	if !s.counting {
		last = s.toks[n-1]
		if n > 1 {
			prev = s.toks[n-2]
		}
	}
	return last.isPunct('.') || last.isPunct('-') && int(last.end()) == i && n > 1 && prev.kind() == Word && prev.end() == last.start
}

// scanNumber extends the number word src[i:j] over a fraction and an
// exponent ("5.", "1.5e-3"): a float literal is one token, so its dot is
// never taken for a path's ("SELECT 5.FROM t" selects 5.0 from t). A word
// of digits right after a dot is a path part (ds.2024), and is not passed
// here. It adds its work to *steps.
func scanNumber(src string, i, j int, steps *int) int {
	*steps += j - i // strings.ContainsFunc
	if strings.ContainsFunc(src[i:j], func(r rune) bool { return !('0' <= r && r <= '9') }) || j >= len(src) || src[j] != '.' {
		return j
	}
	j++
	for ; j < len(src) && isDigit(src[j]); j++ {
		*steps++
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			for ; k < len(src) && isDigit(src[k]); k++ {
				*steps++
			}
			j = k
		}
	}
	return j
}

// skipLineComment returns the offset of the line break that ends the comment
// starting at i, or len(src). Both '\n' and '\r' end it, as in BigQuery;
// ending it at '\r' alone matters, or "SELECT 1 --\r; DROP …" would hide a
// second statement from the guard but not from BigQuery.
func skipLineComment(src string, i int) int {
	if j := strings.IndexAny(src[i:], "\r\n"); j >= 0 {
		return i + j
	}
	return len(src)
}

// scanQuoted scans the string literal or quoted identifier whose opening quote
// is at src[i] and returns the offset just past its closing quote, or a
// non-empty reason when it is not terminated. It adds its work to *steps.
func scanQuoted(src string, i int, steps *int) (end int, reason string) {
	q := src[i]
	if q != '`' && i+2 < len(src) && src[i+1] == q && src[i+2] == q {
		// Triple-quoted: newlines and lone quotes are content. BigQuery's
		// lexer picks this reading whenever three quotes open a literal,
		// since it is always the longer match.
		for j := i + 3; j < len(src); j++ {
			*steps++
			switch src[j] {
			case '\\':
				j++ // the escaped character never closes the literal
			case q:
				if j+2 < len(src) && src[j+1] == q && src[j+2] == q {
					return j + 3, ""
				}
			}
		}
		return 0, "the SQL is incomplete: a triple-quoted string is not closed"
	}
	for j := i + 1; j < len(src); j++ {
		*steps++
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1, ""
		case '\n', '\r':
			if q == '`' {
				return 0, "the SQL is incomplete: a `quoted identifier` is not closed on its line"
			}
			return 0, "the SQL is incomplete: a quoted string is not closed on its line (use ''' or \"\"\" for multi-line strings)"
		}
	}
	if q == '`' {
		return 0, "the SQL is incomplete: a `quoted identifier` is not closed"
	}
	return 0, "the SQL is incomplete: a quoted string is not closed"
}

func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
