package sqltext

import (
	"strings"
	"unicode/utf8"
)

// unescape decodes the escape sequences GoogleSQL accepts in string
// literals and quoted identifiers: \a \b \f \n \r \t \v \\ \? \" \' \`,
// octal \ooo, \xhh (or \Xhh), \uhhhh and \Uhhhhhhhh. ok is false for any
// other escape, which BigQuery rejects. It adds its work to *steps.
func unescape(s string, steps *int) (string, bool) {
	var scratch []byte
	return unescapeInto(&scratch, s, steps)
}

// unescapeInto is unescape, decoding in *scratch (which it keeps for the
// next call): a name with an escape BigQuery does not accept allocates
// nothing, and one it accepts only its string.
func unescapeInto(scratch *[]byte, s string, steps *int) (string, bool) {
	*steps += len(s) // strings.Contains
	if !strings.Contains(s, `\`) {
		return s, true
	}
	b := (*scratch)[:0]
	defer func() { *scratch = b }()
	for i := 0; i < len(s); i++ {
		*steps++
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(s) {
			return "", false
		}
		switch c := s[i]; c {
		case 'a':
			b = append(b, '\a')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'v':
			b = append(b, '\v')
		case '\\', '?', '"', '\'', '`':
			b = append(b, c)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			// Three octal digits, at most \377.
			if i+3 > len(s) {
				return "", false
			}
			n, ok := parseDigits(s[i:i+3], 8)
			if !ok || n > 0xff {
				return "", false
			}
			b = append(b, byte(n))
			i += 2
		case 'x', 'X', 'u', 'U':
			width := escapeWidth(c)
			if i+1+width > len(s) {
				return "", false
			}
			n, ok := parseDigits(s[i+1:i+1+width], 16)
			if !ok {
				return "", false
			}
			if width == 2 {
				b = append(b, byte(n))
			} else {
				r := rune(n)
				if n > utf8.MaxRune || !utf8.ValidRune(r) {
					return "", false
				}
				b = utf8.AppendRune(b, r)
			}
			i += width
		default:
			return "", false
		}
	}
	return string(b), utf8.Valid(b)
}

// parseDigits reads s, all digits of base (8 or 16, at most eight of
// them), as strconv.ParseUint does but without allocating an error.
func parseDigits(s string, base uint64) (uint64, bool) {
	var n uint64
	for i := 0; i < len(s); i++ {
		var d uint64
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		n = n*base + d
	}
	return n, true
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
