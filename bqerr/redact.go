package bqerr

import (
	"regexp"
	"strings"
)

// redacted replaces every secret Redact removes. It contains none of the
// characters the patterns below treat as part of a secret, so a replacement
// can never join with its neighbours into a new match.
const redacted = "[REDACTED]"

// The patterns are compiled once, at the first text that is not plain:
// Redact runs on every error an agent sees and every log line, and RE2
// guarantees linear time, so hostile input cannot stall it.
//
// A secret reaches Redact in many wrappings: raw ("password": "x"), in a
// Python dict ('password': 'x'), quoted once or twice by Go's %q or by JSON
// (\"password\": \"x\"), URL-encoded (password%3Dx, %22password%22%3A%22x%22).
// So names may carry quotes escaped with any number of backslashes, and a
// quoted value ends at the quote that opened it, at the same escaping.
const (
	// escQuote is an optional quote, possibly escaped (\" or \\\").
	escQuote = `(?:\\*["'])?`
	// sep is the separator between a name and its value.
	sep = `\s*[:=]\s*`
	// quotedValue is a raw quoted value (JSON or Python; an unterminated one
	// runs to the end), or the opening of an escaped one (\" or \\\"),
	// whose end [replaceValues] finds by counting backslashes.
	quotedValue = `(?:\\+["']|"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?)`
	bareValue   = `[^\s&,;"'{}\[\]<>\\]+`
	// restOfLine is a header value: everything up to a newline, raw or
	// escaped (\n in %q text).
	restOfLine = `(?:[^\r\n\\]|\\[^nr])*`

	// secretNames name fields whose value is a credential, also with a
	// prefix (db_password, x-api-key is below). Bare "token" and "secret"
	// are left out: SQL errors say "Unexpected token:".
	secretNames = `(?:[A-Za-z0-9]+[_-])*(?:access_token|refresh_token|id_token|client_secret|private_key_id|private_key|api_key|apikey|password|passwd)`
	// headerNames are HTTP headers that carry credentials.
	headerNames = `(?:proxy-authorization|authorization|x-goog-api-key|x-api-key|set-cookie|cookie)`
)

var (
	// stackRE finds where a Go stack trace starts: a goroutine header, a
	// Java-style "\tat " frame, or an indented file.go:NN frame line.
	stackRE = lazyRegexp(`goroutine\s|(?m:^\tat |^\t+\S*\.go:\d+)`)

	// pemRE matches a private key block; an unterminated block (a message cut
	// short) is removed to the end of the text. The label (RSA, EC, ...) is
	// kept to capitals and spaces so it cannot swallow the END marker.
	pemRE = lazyRegexp(`(?s)-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|\z)`)

	// headerRE matches a credential-carrying header: its quoted value, or
	// everything after it on its line, whatever the scheme.
	headerRE = lazyRegexp(`(?i)(\b` + headerNames + escQuote + sep + `)(` + quotedValue + `|` + restOfLine + `)`)

	// bearerRE matches a bearer credential wherever it appears, in any
	// case, also URL-encoded (Bearer%20…).
	bearerRE = lazyRegexp(`(?i)\b(bearer)(?:\s+|%20|\+)[A-Za-z0-9\-._~+/%]+=*`)

	// secretQuotedRE and secretBareRE match the value of a secret-named
	// field, quoted ("private_key": "...") or bare (access_token=...).
	secretQuotedRE = lazyRegexp(`(?i)(\b` + secretNames + escQuote + sep + `)(` + quotedValue + `)`)
	secretBareRE   = lazyRegexp(`(?i)(\b` + secretNames + escQuote + sep + `)(` + bareValue + `)`)

	// secretEncodedRE matches a secret-named field URL-encoded: the
	// separator is %3D or %3A, quotes are %22 or %27, and the value ends at
	// an encoded delimiter (%26 &, %22 ", %2C , %20 space …).
	secretEncodedRE = lazyRegexp(`(?i)(` + secretNames + `(?:%22|%27)?(?:%20|\+)*(?:%3D|%3A)(?:%20|\+)*(?:%22|%27)?)((?:[^%&\s"'<>\\]|%(?:[013-9A-F][0-9A-F]|2[BDEF]))+)`)

	// keyRE matches a bare key=value ("key=abc", "api-key=abc"), the form
	// API keys travel in outside a URL. "monkey=3" and "key: id" are left
	// alone.
	keyRE = lazyRegexp(`(?i)(\b(?:x-)?(?:api[_-]?)?key=)(` + bareValue + `)`)

	// urlRE matches an absolute URL: scheme, authority (which may hold
	// userinfo), path, then an optional query and/or fragment.
	urlRE = lazyRegexp(`(?i)\b([a-z][a-z0-9+.\-]{0,30}://)([^\s/?#"'<>\x60]*)([^\s?#"'<>\x60]*)([?#][^\s"'<>\x60]*)?`)

	// queryRE matches a query string outside an absolute URL
	// ("/jobs?key=...", "?alt=json&key=..."). Its value part stops only at a
	// delimiter, so removing it cannot splice a new "?name=" together.
	queryRE = lazyRegexp(`\?[A-Za-z0-9_.\-\[\]%]+=[^\s"'<>#\x60]*`)

	// tokenRE matches Google credentials by their shape alone: OAuth access
	// tokens (ya29.), API keys (AIza), refresh tokens (1//) and JWTs.
	tokenRE = lazyRegexp(`(?i:ya29\.[A-Za-z0-9_\-.]*)|AIza[0-9A-Za-z_\-]{20,}|\b1//[0-9A-Za-z_\-]{10,}|\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*`)
)

// Redact removes anything secret from text that is about to reach an agent
// or a log: URL query strings and userinfo, bearer tokens and other Google
// credentials, credential headers (Authorization, X-Goog-Api-Key, Cookie),
// secret-named fields in any quoting or encoding, private key blocks, and Go
// stack traces.
//
// Errors from the HTTP stack quote the request URL (which may carry ?key=),
// token endpoints echo credentials, and panics carry stack traces that leak
// paths and internals. A model may repeat whatever it is shown, so every
// message built by this package passes through Redact first. Redact never
// panics and never makes its input longer than needed for the markers.
func Redact(s string) string {
	if plain(s) {
		return s
	}
	return redact(s)
}

// redact is Redact for text that may hold a secret.
func redact(s string) string {
	s = cutStack(s)
	s = pemRE().ReplaceAllString(s, "[REDACTED PRIVATE KEY]")
	s = replaceValues(headerRE(), s)
	s = bearerRE().ReplaceAllString(s, "${1} "+redacted)
	s = replaceValues(secretQuotedRE(), s)
	s = replaceValues(secretBareRE(), s)
	s = replaceValues(secretEncodedRE(), s)
	s = replaceValues(keyRE(), s)
	s = urlRE().ReplaceAllStringFunc(s, redactURL)
	s = queryRE().ReplaceAllString(s, "")
	s = tokenRE().ReplaceAllString(s, redacted)
	// Removals above can in principle join text into "goroutine "; cutting
	// again keeps the guarantee absolute.
	return cutStack(s)
}

// plain reports whether no pattern of Redact's can match anywhere in s, so
// that s has nothing to remove. Each pattern needs one of these to match: a
// name's separator (: or =; urlRE's :// and queryRE's ?k=v have one too), a
// percent escape (secretEncodedRE), a tab or "goroutine" (stackRE), or the
// words pemRE, bearerRE and tokenRE start with. Most of what is logged (a
// project ID, a tool name, "stdio") has none, so Redact answers it without
// running a pattern, and a start that logs only such text compiles none.
// TestPlainTextHasNothingToRedact and FuzzRedact hold plain to the patterns.
func plain(s string) bool {
	if strings.ContainsAny(s, ":=%\t") {
		return false
	}
	for _, w := range [...]string{"goroutine", "-----BEGIN ", "AIza", "1//", "eyJ"} {
		if strings.Contains(s, w) {
			return false
		}
	}
	// bearerRE and tokenRE's ya29. ignore case; these letters fold only to
	// their ASCII capitals, so an ASCII comparison finds every spelling.
	for _, w := range [...]string{"bearer", "ya29"} {
		if containsASCIIFold(s, w) {
			return false
		}
	}
	return true
}

// containsASCIIFold reports whether s contains the lower-case ASCII word w
// in any mix of case.
func containsASCIIFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && s[i+j]|0x20 == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// replaceValues replaces group 2 of every match of re (a value) with the
// marker, keeping group 1 (the name and separator) and the value's quotes,
// at the same escaping, so the text around still reads as it did.
func replaceValues(re *regexp.Regexp, s string) string {
	idx := re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range idx {
		if m[0] < last {
			continue // inside an escaped value already removed
		}
		b.WriteString(s[last:m[3]]) // up to the end of the name and separator
		quote := leadingQuote(s[m[4]:m[5]])
		end := m[5]
		if len(quote) > 1 && end == m[4]+len(quote) {
			end = escapedEnd(s, end, quote)
		}
		b.WriteString(quote + redacted + quote)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// escapedEnd returns where an escaped quoted value that opened with quote
// (n backslashes and a quote character) ends, searching s from i: after the
// first such quote preceded by at most n backslashes. A quote escaped one
// level deeper (a quote inside the value) has more; a value never closed
// runs to the end of s.
func escapedEnd(s string, i int, quote string) int {
	n, q := len(quote)-1, quote[len(quote)-1]
	run := 0
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			run++
		case c == q && run <= n:
			return i + 1
		default:
			run = 0
		}
	}
	return len(s)
}

// leadingQuote returns the quote that opens v with its escaping (", \", '),
// or "" for a bare value.
func leadingQuote(v string) string {
	i := 0
	for i < len(v) && v[i] == '\\' {
		i++
	}
	if i < len(v) && (v[i] == '"' || v[i] == '\'') {
		return v[:i+1]
	}
	return ""
}

// cutStack drops everything from the first stack-trace marker on: a stack
// trace is never useful to an agent and always leaks internals.
func cutStack(s string) string {
	if loc := stackRE().FindStringIndex(s); loc != nil {
		return strings.TrimRight(s[:loc[0]], " \t\r\n:")
	}
	return s
}

// redactURL keeps a URL's scheme, host and path and drops its userinfo,
// query and fragment, which is where keys and signatures travel.
func redactURL(u string) string {
	m := urlRE().FindStringSubmatch(u)
	if m == nil { // cannot happen: u is a match of urlRE
		return ""
	}
	scheme, authority, path := m[1], m[2], m[3]
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	return scheme + authority + path
}
