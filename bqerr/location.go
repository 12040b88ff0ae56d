package bqerr

import (
	"encoding/binary"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// bqLocationRE finds the SQL position in a message: BigQuery writes
// "... at [3:15]", ZetaSQL (and so the emulator) writes "... [at 3:15]".
var bqLocationRE = regexp.MustCompile(`\bat \[(\d{1,9}):(\d{1,9})\]|\[at (\d{1,9}):(\d{1,9})\]`)

// payloadPrefix opens an absl::Status payload as printed by Status::ToString:
// [type.googleapis.com/<proto name>='<C-escaped serialized proto>'].
const payloadPrefix = "[type.googleapis.com/"

// errorLocationType is the payload that carries the SQL position.
const errorLocationType = "zetasql.ErrorLocation"

// ParseSQLLocation finds where in the SQL a BigQuery or ZetaSQL error
// message points, and returns the message without the ZetaSQL status
// payloads that the BigQuery emulator appends.
//
// BigQuery says "at [3:15]" in prose and the text is kept (it reads well).
// The emulator instead appends
// [type.googleapis.com/zetasql.ErrorLocation='\x08\x03\x10\x0f'], a
// C-escaped protobuf (field 1 = line, field 2 = column) that means nothing to
// a model; it is decoded and cut out. loc is nil when no position is found.
// Malformed input yields no location rather than a panic.
func ParseSQLLocation(msg string) (loc *Location, cleaned string) {
	loc, cleaned, _ = parseSQLLocation(msg)
	return loc, cleaned
}

// parseSQLLocation is ParseSQLLocation that also reports whether a ZetaSQL
// payload was present, which marks the message as the emulator's analyzer
// output rather than a BigQuery backend fault.
func parseSQLLocation(msg string) (loc *Location, cleaned string, zetasql bool) {
	cleaned, payloadLoc, zetasql := stripPayloads(msg)
	if m := bqLocationRE.FindStringSubmatch(cleaned); m != nil {
		l, c := m[1], m[2]
		if l == "" {
			l, c = m[3], m[4]
		}
		line, _ := strconv.Atoi(l)
		col, _ := strconv.Atoi(c)
		if line > 0 || col > 0 {
			return &Location{Line: line, Column: col}, cleaned, zetasql
		}
	}
	return payloadLoc, cleaned, zetasql
}

// stripPayloads removes every [type.googleapis.com/...='...'] payload from
// msg, decoding the first zetasql.ErrorLocation it meets.
func stripPayloads(msg string) (cleaned string, loc *Location, zetasql bool) {
	var b strings.Builder
	rest := msg
	for {
		i := strings.Index(rest, payloadPrefix)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		zetasql = zetasql || strings.HasPrefix(rest[i+len(payloadPrefix):], "zetasql.")
		b.WriteString(strings.TrimRight(rest[:i], " "))
		typeName, raw, n := scanPayload(rest[i:])
		if typeName == errorLocationType && loc == nil {
			loc = decodeErrorLocation(unescapeC(raw))
		}
		rest = rest[i+n:]
	}
	return strings.TrimSpace(b.String()), loc, zetasql
}

// scanPayload reads one payload at the start of s and returns its type name,
// its still-escaped body and how many bytes it spans. A payload that is not
// closed (a message cut short) spans the rest of s.
func scanPayload(s string) (typeName, raw string, n int) {
	body := s[len(payloadPrefix):]
	eq := strings.Index(body, "='")
	if eq < 0 {
		return "", "", len(s)
	}
	typeName = body[:eq]
	start := len(payloadPrefix) + eq + 2
	for j := start; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++ // skip the escaped character, whatever it is
		case '\'':
			end := j + 1
			if end < len(s) && s[end] == ']' {
				end++
			}
			return typeName, s[start:j], end
		}
	}
	return typeName, s[start:], len(s)
}

// unescapeC undoes C escaping as absl's CEscape/CHexEscape write it: \xHH,
// \NNN (octal), \n \r \t \\ \' \" and friends; other bytes stand for
// themselves (printable bytes are written raw).
func unescapeC(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out = append(out, s[i])
			continue
		}
		i++
		switch c := s[i]; {
		case c == 'x' || c == 'X':
			v, n := 0, 0
			for n < 2 && i+1 < len(s) && isHex(s[i+1]) {
				i++
				v = v<<4 | hexVal(s[i])
				n++
			}
			if n == 0 {
				out = append(out, c)
				continue
			}
			out = append(out, byte(v))
		case c >= '0' && c <= '7':
			v := int(c - '0')
			for n := 1; n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; n++ {
				i++
				v = v<<3 | int(s[i]-'0')
			}
			out = append(out, byte(v))
		default:
			out = append(out, simpleEscape(c))
		}
	}
	return out
}

func simpleEscape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'a':
		return '\a'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'v':
		return '\v'
	}
	return c // \\ \' \" \? and anything unknown
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// decodeErrorLocation reads line (field 1) and column (field 2) from a
// serialized zetasql.ErrorLocation, skipping fields it does not know. It
// stops at the first malformed byte and keeps what it has read.
func decodeErrorLocation(b []byte) *Location {
	var line, col int
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		b = b[n:]
		field, wire := key>>3, key&7
		switch wire {
		case 0: // varint
			v, n := binary.Uvarint(b)
			if n <= 0 {
				b = nil
				break
			}
			b = b[n:]
			if v > math.MaxInt32 { // negative or absurd: not a position
				continue
			}
			switch field {
			case 1:
				line = int(v)
			case 2:
				col = int(v)
			}
		case 1: // fixed64
			b = skip(b, 8)
		case 2: // length-delimited (file name, error sources)
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				b = nil
				break
			}
			b = b[n+int(l):]
		case 5: // fixed32
			b = skip(b, 4)
		default: // groups or garbage: nothing more can be trusted
			b = nil
		}
	}
	if line <= 0 && col <= 0 {
		return nil
	}
	return &Location{Line: line, Column: col}
}

func skip(b []byte, n int) []byte {
	if len(b) < n {
		return nil
	}
	return b[n:]
}
