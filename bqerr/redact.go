package bqerr

import (
	"regexp"
	"strings"
)

// redacted replaces every secret Redact removes. It contains none of the
// characters the patterns below treat as part of a secret, so a replacement
// can never join with its neighbours into a new match.
const redacted = "[REDACTED]"

// The patterns are compiled once: Redact runs on every error an agent sees,
// and RE2 guarantees linear time, so hostile input cannot stall it.
var (
	// stackRE finds where a Go stack trace starts: a goroutine header, a
	// Java-style "\tat " frame, or an indented file.go:NN frame line.
	stackRE = regexp.MustCompile(`goroutine\s|(?m:^\tat |^\t+\S*\.go:\d+)`)

	// pemRE matches a private key block; an unterminated block (a message cut
	// short) is removed to the end of the text. The label (RSA, EC, ...) is
	// kept to capitals and spaces so it cannot swallow the END marker.
	pemRE = regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|\z)`)

	// authHeaderRE matches an Authorization header and everything after it on
	// its line, whatever the scheme.
	authHeaderRE = regexp.MustCompile(`(?i)(\bauthorization["']?\s*[:=]\s*)[^\r\n]*`)

	// bearerRE matches a bearer credential wherever it appears.
	bearerRE = regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*`)

	// secretQuotedRE and secretBareRE match the value of a secret-named
	// field, JSON-quoted ("private_key": "...") or bare (access_token=...).
	// A quoted value with no closing quote is removed to the end. Bare
	// "token" and "secret" are left out: SQL errors say "Unexpected token:".
	secretNames    = `(?:access_token|refresh_token|id_token|client_secret|private_key_id|private_key|api_key|apikey|password|passwd)`
	secretQuotedRE = regexp.MustCompile(`(?i)(\b` + secretNames + `\b["']?\s*[:=]\s*)"(?:[^"\\]|\\.)*"?`)
	secretBareRE   = regexp.MustCompile(`(?i)(\b` + secretNames + `\b["']?\s*[:=]\s*)[^\s&,;"'{}\[\]<>]+`)

	// urlRE matches an absolute URL: scheme, authority (which may hold
	// userinfo), path, then an optional query and/or fragment.
	urlRE = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]{0,30}://)([^\s/?#"'<>\x60]*)([^\s?#"'<>\x60]*)([?#][^\s"'<>\x60]*)?`)

	// queryRE matches a query string outside an absolute URL
	// ("/jobs?key=...", "?alt=json&key=..."). Its value part stops only at a
	// delimiter, so removing it cannot splice a new "?name=" together.
	queryRE = regexp.MustCompile(`\?[A-Za-z0-9_.\-\[\]%]+=[^\s"'<>#\x60]*`)

	// tokenRE matches Google credentials by their shape alone: OAuth access
	// tokens (ya29.), API keys (AIza), refresh tokens (1//) and JWTs.
	tokenRE = regexp.MustCompile(`(?i:ya29\.[A-Za-z0-9_\-.]*)|AIza[0-9A-Za-z_\-]{20,}|\b1//[0-9A-Za-z_\-]{10,}|\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*`)
)

// Redact removes anything secret from text that is about to reach an agent:
// URL query strings and userinfo, bearer tokens and other Google credentials,
// secret-named fields, private key blocks, and Go stack traces.
//
// Errors from the HTTP stack quote the request URL (which may carry ?key=),
// token endpoints echo credentials, and panics carry stack traces that leak
// paths and internals. A model may repeat whatever it is shown, so every
// message built by this package passes through Redact first. Redact never
// panics and never makes its input longer than needed for the markers.
func Redact(s string) string {
	s = cutStack(s)
	s = pemRE.ReplaceAllString(s, "[REDACTED PRIVATE KEY]")
	s = authHeaderRE.ReplaceAllString(s, "${1}"+redacted)
	s = bearerRE.ReplaceAllString(s, "${1} "+redacted)
	s = secretQuotedRE.ReplaceAllString(s, `${1}"`+redacted+`"`)
	s = secretBareRE.ReplaceAllString(s, "${1}"+redacted)
	s = urlRE.ReplaceAllStringFunc(s, redactURL)
	s = queryRE.ReplaceAllString(s, "")
	s = tokenRE.ReplaceAllString(s, redacted)
	// Removals above can in principle join text into "goroutine "; cutting
	// again keeps the guarantee absolute.
	return cutStack(s)
}

// cutStack drops everything from the first stack-trace marker on: a stack
// trace is never useful to an agent and always leaks internals.
func cutStack(s string) string {
	if loc := stackRE.FindStringIndex(s); loc != nil {
		return strings.TrimRight(s[:loc[0]], " \t\r\n:")
	}
	return s
}

// redactURL keeps a URL's scheme, host and path and drops its userinfo,
// query and fragment, which is where keys and signatures travel.
func redactURL(u string) string {
	m := urlRE.FindStringSubmatch(u)
	if m == nil { // cannot happen: u is a match of urlRE
		return ""
	}
	scheme, authority, path := m[1], m[2], m[3]
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	return scheme + authority + path
}
