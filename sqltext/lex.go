package sqltext

import (
	"slices"
	"strconv"
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
// byte is looked at a bounded number of times.
func Lex(src string) (toks []Token, incomplete string) {
	var steps int
	return lex(src, &steps)
}

// lex is Lex, adding to *steps one step per iteration of each of its loops
// and per byte a library call scans. The count is how tests hold the
// lexer to linear work without a clock (TestReaderWorkIsLinear).
//
// It lexes twice: the first pass only counts the tokens, so that the
// second fills a slice of exactly that length. A text of one-byte tokens
// ("((((…") has as many tokens as bytes, at 64 bytes a token, and growing
// the slice as it fills would allocate, clear and copy it again and again.
func lex(src string, steps *int) (toks []Token, incomplete string) {
	count := tokenSink{counting: true}
	count.lex(src, steps)
	fill := tokenSink{toks: make([]Token, 0, count.n)}
	incomplete = fill.lex(src, steps)
	return fill.toks, incomplete
}

// tokenSink receives one pass of lex's tokens.
type tokenSink struct {
	// counting is set on the counting pass, which keeps no tokens but the
	// last two (for afterPathSeparator), and decodes no quoted names.
	counting bool
	// n is the number of tokens so far.
	n          int
	toks       []Token
	prev, last Token
}

func (s *tokenSink) add(t Token) {
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
	if s.counting {
		s.add(Token{Kind: String, Start: start, End: end})
		return
	}
	t := newQuoted(src, start, end, q, steps)
	t.BadEscape = t.BadEscape || bad
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
			s.add(Token{Kind: Word, Start: i, End: j, Text: src[i:j], Value: src[i:j]})
			i = j
		case c >= utf8.RuneSelf:
			// Unicode whitespace (e.g. a no-break space pasted from a
			// document) separates tokens in BigQuery too; anything else
			// is a one-rune token that BigQuery will reject or use as it
			// likes, but never as a string or comment delimiter.
			r, n := utf8.DecodeRuneInString(src[i:])
			if !unicode.IsSpace(r) {
				s.add(Token{Kind: Punct, Start: i, End: i + n, Text: src[i : i+n], Value: src[i : i+n]})
			}
			i += n
		default:
			s.add(Token{Kind: Punct, Start: i, End: i + 1, Text: src[i : i+1], Value: src[i : i+1]})
			i++
		}
	}
	return ""
}

func newQuoted(src string, start, end int, q byte, steps *int) Token {
	t := Token{Kind: String, Start: start, End: end, Text: src[start:end], Value: src[start:end]}
	if q != '`' {
		return t
	}
	t.Kind = QuotedIdent
	v, ok := unescape(strings.TrimSuffix(t.Text[1:], "`"), steps)
	t.Value, t.BadEscape = v, !ok || v == ""
	return t
}

// unescape decodes the escape sequences GoogleSQL accepts in string
// literals and quoted identifiers: \a \b \f \n \r \t \v \\ \? \" \' \`,
// octal \ooo, \xhh (or \Xhh), \uhhhh and \Uhhhhhhhh. ok is false for any
// other escape, which BigQuery rejects. It adds its work to *steps.
func unescape(s string, steps *int) (string, bool) {
	*steps += len(s) // strings.Contains
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		*steps++
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", false
		}
		switch c := s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '?', '"', '\'', '`':
			b.WriteByte(c)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			if i+3 > len(s) {
				return "", false
			}
			n, err := strconv.ParseUint(s[i:i+3], 8, 8)
			if err != nil {
				return "", false
			}
			b.WriteByte(byte(n))
			i += 2
		case 'x', 'X', 'u', 'U':
			width := escapeWidth(c)
			if i+1+width > len(s) {
				return "", false
			}
			n, err := strconv.ParseUint(s[i+1:i+1+width], 16, 32)
			if err != nil {
				return "", false
			}
			if width == 2 {
				b.WriteByte(byte(n))
			} else {
				r := rune(n)
				if !utf8.ValidRune(r) {
					return "", false
				}
				b.WriteRune(r)
			}
			i += width
		default:
			return "", false
		}
	}
	v := b.String()
	return v, utf8.ValidString(v)
}

// escapeWidth is the number of hex digits after \x, \X, \u or \U.
func escapeWidth(c byte) int {
	switch c {
	case 'u':
		return 4
	case 'U':
		return 8
	}
	return 2
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
	return last.IsPunct('.') || last.IsPunct('-') && last.End == i && n > 1 && prev.Kind == Word && prev.End == last.Start
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

// Split groups tokens into statements separated by ';', dropping empty
// ones. Every returned group has at least one token. A CREATE PROCEDURE is
// one statement, with the semicolons of its BEGIN … END body inside it.
func Split(toks []Token) [][]Token {
	var steps int
	return split(toks, &steps)
}

// split is Split, adding one step per token to *steps.
func split(toks []Token, steps *int) [][]Token {
	var stmts [][]Token
	start := 0
	procedure := false
	var b blocks
	for i, t := range toks {
		*steps++
		if i == start {
			procedure, b = createsProcedure(toks[start:]), blocks{}
		}
		if procedure {
			b.step(toks, i)
		}
		if t.IsPunct(';') && b.depth == 0 {
			if i > start {
				stmts = append(grow(stmts), toks[start:i])
			}
			start = i + 1
		}
	}
	if start < len(toks) {
		stmts = append(stmts, toks[start:])
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

func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
