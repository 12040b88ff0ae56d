package rows

// Scalar encoders for Append: each appends one BigQuery value as JSON,
// writing exactly what encoding/json or the BigQuery client's own String
// methods would, without their allocations.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"cloud.google.com/go/civil"
)

// encNumber writes a json.Number as encoding/json does: "" as 0, anything
// that is not a JSON number literal as an error.
func encNumber(dst []byte, x json.Number) ([]byte, error) {
	if x == "" {
		return append(dst, '0'), nil
	}
	if c := x[0]; (c != '-' && (c < '0' || c > '9')) || !json.Valid([]byte(x)) {
		return dst, fmt.Errorf("rows: invalid number literal %q", string(x))
	}
	return append(dst, x...), nil
}

func encInt(dst []byte, n int64) []byte {
	if n >= -encMaxSafeInt && n <= encMaxSafeInt {
		return strconv.AppendInt(dst, n, 10)
	}
	dst = append(dst, '"')
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, '"')
}

// encFloat writes x exactly as encoding/json does (shortest round-trip
// representation, exponent only outside [1e-6, 1e21)), and the non-finite
// values JSON cannot represent as the strings "NaN", "Infinity", "-Infinity".
func encFloat(dst []byte, x float64, bits int) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, `"NaN"`...)
	case math.IsInf(x, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(x, -1):
		return append(dst, `"-Infinity"`...)
	}
	abs := math.Abs(x)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, x, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

func encBytes(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// encTimestamp writes RFC 3339 in UTC with only the fractional digits
// needed, e.g. "2024-03-01T12:00:00.5Z".
func encTimestamp(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.UTC().AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"')
}

// encDate, encTime and encDateTime produce exactly what civil's
// String methods produce, without fmt; values outside the ranges the fast
// path handles fall back to String.
func encDate(dst []byte, d civil.Date) []byte {
	dst = append(dst, '"')
	if d.Year >= 0 && d.Year <= 9999 && d.Month >= 0 && d.Month <= 99 && d.Day >= 0 && d.Day <= 99 {
		dst = encDigits(dst, d.Year, 4)
		dst = append(dst, '-')
		dst = encDigits(dst, int(d.Month), 2)
		dst = append(dst, '-')
		dst = encDigits(dst, d.Day, 2)
	} else {
		dst = append(dst, d.String()...)
	}
	return append(dst, '"')
}

func encTime(dst []byte, t civil.Time) []byte {
	dst = append(dst, '"')
	dst = encTimeBody(dst, t)
	return append(dst, '"')
}

func encDateTime(dst []byte, dt civil.DateTime) []byte {
	dst = encDate(dst, dt.Date)
	dst[len(dst)-1] = 'T' // replace the closing quote
	dst = encTimeBody(dst, dt.Time)
	return append(dst, '"')
}

// encTimeBody matches civil.Time.String: "15:04:05" plus ".%09d" when
// there are nanoseconds.
func encTimeBody(dst []byte, t civil.Time) []byte {
	if t.Hour < 0 || t.Hour > 99 || t.Minute < 0 || t.Minute > 99 || t.Second < 0 || t.Second > 99 ||
		t.Nanosecond < 0 || t.Nanosecond > 999_999_999 {
		return append(dst, t.String()...)
	}
	dst = encDigits(dst, t.Hour, 2)
	dst = append(dst, ':')
	dst = encDigits(dst, t.Minute, 2)
	dst = append(dst, ':')
	dst = encDigits(dst, t.Second, 2)
	if t.Nanosecond != 0 {
		dst = append(dst, '.')
		dst = encDigits(dst, t.Nanosecond, 9)
	}
	return dst
}

// encDigits writes 0 <= n < 10^width zero-padded to width digits.
func encDigits[T int | uint64](dst []byte, n T, width int) []byte {
	dst = slices.Grow(dst, width)
	end := len(dst) + width
	dst = dst[:end]
	for i := end - 1; i >= end-width; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
	return dst
}

// encDecimal writes r as a JSON string in its shortest exact form: the
// digits r.FloatString(scale) gives (what bigquery.NumericString, scale 9,
// and BigNumericString, scale 38, return) without trailing fractional zeros,
// so NUMERIC 10.5 is "10.5", not "10.500000000", and 3 is "3".
// FloatString costs ~10 allocations (it computes 10^scale with big
// arithmetic on every call), so the common case is done with uint64
// arithmetic: the client parses NUMERIC values from decimal text, so the
// denominator is 2^a·5^b and the fraction ends after max(a, b) digits.
func encDecimal(dst []byte, r *big.Rat, scale int) []byte {
	dst = append(dst, '"')
	start := len(dst)
	if out, ok := encDecimalFast(dst, r, scale); ok {
		dst = out
	} else {
		dst = append(dst, r.FloatString(scale)...)
	}
	return append(trimFraction(dst, start), '"')
}

// trimFraction drops trailing zeros of the decimal written from start on,
// and its point when no fraction is left ("-0.0" stays "-0": FloatString
// writes no negative zero, so the case does not arise).
func trimFraction(dst []byte, start int) []byte {
	if bytes.IndexByte(dst[start:], '.') < 0 {
		return dst
	}
	dst = bytes.TrimRight(dst, "0")
	return bytes.TrimSuffix(dst, []byte{'.'})
}

var encPow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

func encDecimalFast(dst []byte, r *big.Rat, scale int) ([]byte, bool) {
	num := r.Num() // a reference: no allocation
	if !num.IsInt64() {
		return dst, false
	}
	n := num.Int64()
	den := uint64(1)
	if !r.IsInt() {
		d := r.Denom() // a reference for non-integers (Denom allocates only for integers)
		if !d.IsUint64() {
			return dst, false
		}
		den = d.Uint64()
	}
	twos := bits.TrailingZeros64(den)
	fives, rest := 0, den>>twos
	for rest%5 == 0 {
		rest /= 5
		fives++
	}
	k := max(twos, fives) // fractional digits needed for an exact result
	if rest != 1 || k > scale || k >= len(encPow10) {
		return dst, false // FloatString would round, or too wide for uint64
	}
	u := uint64(n)
	if n < 0 {
		u = -u
		dst = append(dst, '-')
	}
	dst = strconv.AppendUint(dst, u/den, 10)
	if scale > 0 {
		dst = append(dst, '.')
		dst = encDigits(dst, (u%den)*(encPow10[k]/den), k)
		for i := k; i < scale; i++ {
			dst = append(dst, '0')
		}
	}
	return dst, true
}

// encJSONColumn embeds a JSON column's text as the JSON value itself when
// it is valid JSON (compacted), and as a string otherwise.
func encJSONColumn(dst []byte, s string) []byte {
	if s == "" || !utf8.ValidString(s) {
		return encString(dst, s)
	}
	if out, ok := encCompactJSON(dst, []byte(s)); ok {
		return out
	}
	return encString(dst, s)
}

// encRawJSON embeds already-marshalled JSON, or writes it as a string if it
// is not valid JSON.
func encRawJSON(dst []byte, b []byte) []byte {
	if len(b) > 0 && utf8.Valid(b) {
		if out, ok := encCompactJSON(dst, b); ok {
			return out
		}
	}
	return encString(dst, string(b))
}

func encCompactJSON(dst []byte, b []byte) ([]byte, bool) {
	if !encHasSpace(b) {
		if json.Valid(b) {
			return append(dst, b...), true
		}
		return dst, false
	}
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, b); err != nil {
		return dst, false
	}
	return buf.Bytes(), true
}

func encHasSpace(b []byte) bool {
	for _, c := range b {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			return true
		}
	}
	return false
}

// encString writes s as a JSON string. Unlike encoding/json it does not
// escape <, > and & (the output is for agents, not HTML); like encoding/json
// it escapes control characters, U+2028 and U+2029, and replaces invalid
// UTF-8 with U+FFFD.
func encString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
