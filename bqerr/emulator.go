package bqerr

// What the goccy/bigquery-emulator does differently from BigQuery, kept here
// so the mapping for real BigQuery (map.go) reads without it. Real BigQuery's
// reasons are the truth; these rules only make the emulator's shapes classify
// sensibly, and none of them can fire on an answer real BigQuery gives.

import (
	"math"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// jobInternalError classifies BigQuery's jobInternalError reason. The
// emulator reports every SQL mistake as jobInternalError with HTTP 400 and
// ZetaSQL's message, so a 4xx (or a ZetaSQL payload or wording, on the
// job-status path with no HTTP code) means the query is wrong, not that
// BigQuery broke. From real BigQuery it is a retryable backend fault.
func jobInternalError(msg string, status int, zetasql bool) verdict {
	if status >= 400 && status < 500 || status == 0 && (zetasql || emulatorSQLRE().MatchString(msg)) {
		if objectNotFound(msg) {
			return verdict{code: NotFound}
		}
		return verdict{code: QueryError}
	}
	return verdict{code: Internal, retryable: true, hint: hintBackendRetry}
}

// emulatorSQLRE recognises the emulator's SQL failures on the job-status
// path, where it sends ZetaSQL's text without the location payload.
// Real BigQuery never words a jobInternalError like this.
var emulatorSQLRE = lazyRegexp(`failed to analyze|INVALID_ARGUMENT: |Syntax error|failed to convert|failed to parse`)

// notFoundRE and notObjectRE tell "Table not found: x" / "dataset d is not
// found" (the agent should look the name up) from "Function not found: f"
// (the SQL is wrong).
var (
	notFoundRE  = lazyRegexp(`(?i)\bnot found\b`)
	notObjectRE = lazyRegexp(`(?i)\b(function|column|field|name|signature|parameter|member) not found\b`)
)

func objectNotFound(msg string) bool {
	return notFoundRE().MatchString(msg) && !notObjectRE().MatchString(msg)
}

// payloadPrefix opens an absl::Status payload as printed by Status::ToString:
// [type.googleapis.com/<proto name>='<C-escaped serialized proto>'].
const payloadPrefix = "[type.googleapis.com/"

// errorLocationType is the payload that carries the SQL position.
const errorLocationType = "zetasql.ErrorLocation"

// stripPayloads removes every [type.googleapis.com/...='...'] payload from
// msg, decoding the first zetasql.ErrorLocation it meets. BigQuery writes
// "at [3:15]" in prose; the emulator instead appends
// [type.googleapis.com/zetasql.ErrorLocation='\x08\x03\x10\x0f'], a
// C-escaped protobuf (field 1 = line, field 2 = column) that means nothing to
// a model, so it is decoded and cut out.
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
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		b = b[n:]
		if typ != protowire.VarintType || num != 1 && num != 2 {
			// A file name, error sources, or a field from a newer ZetaSQL.
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				break
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			break
		}
		b = b[n:]
		if v > math.MaxInt32 { // negative or absurd: not a position
			continue
		}
		if num == 1 {
			line = int(v)
		} else {
			col = int(v)
		}
	}
	if line <= 0 && col <= 0 {
		return nil
	}
	return &Location{Line: line, Column: col}
}
