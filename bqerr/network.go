package bqerr

// Failures that happen before BigQuery answers: fetching credentials, the
// caller's context, TLS and endpoint misconfiguration, and the network.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"cloud.google.com/go/auth"
	"golang.org/x/oauth2"
)

// ---- credentials ----

// oauthCodeRE is what an RFC 6749 error code looks like (invalid_grant);
// only such a code is echoed, never the token endpoint's body.
var oauthCodeRE = lazyRegexp(`^[a-z_]{1,40}$`)

// fromAuth maps a failure to obtain credentials. The token endpoint's body
// may hold secrets, so it is never copied; only its status and RFC 6749
// error code are.
//
// A token fetch that got no answer (DNS, a reset connection, a timeout) is
// UNAVAILABLE and retryable, like the same failure towards BigQuery: the
// credentials may be fine. The libraries deliver that failure in several
// shapes: a *url.Error for the token URL, an *auth.Error or a
// "cannot fetch token" error wrapping one, or only its text when oauth2
// formatted it with %v.
func fromAuth(err error) *Error {
	var re *oauth2.RetrieveError
	var ae *auth.Error
	switch {
	case errors.As(err, &re) && re != nil:
		if re.Response == nil {
			if e := tokenUnreachable(err); e != nil {
				return e
			}
		}
		return tokenRefused(statusOf(re.Response), re.ErrorCode)
	case errors.As(err, &ae) && ae != nil:
		if ae.Response == nil {
			if e := tokenUnreachable(err); e != nil {
				return e
			}
		}
		return tokenRefused(statusOf(ae.Response), "")
	}
	s := errText(err)
	switch {
	case strings.Contains(s, "could not find default credentials"):
		return build(AuthError, false, "", "no Google credentials were found for BigQuery", DefaultHint(AuthError))
	case strings.Contains(s, "cannot fetch token") || tokenURL(err):
		if e := tokenUnreachable(err); e != nil {
			return e
		}
		return build(AuthError, false, "", "no Google credentials were found for BigQuery", DefaultHint(AuthError))
	case metadataNotDefinedRE().MatchString(s):
		return build(AuthError, false, "", "the metadata server has no credentials for this server", DefaultHint(AuthError))
	}
	return nil
}

// FromTokenFetch maps a failure to fetch credentials, for callers that know
// the failure came from a token source: a fetch that got no answer is
// UNAVAILABLE and retryable whatever endpoint it went to (a test server, a
// workforce STS), anything else that [From] does not know is AUTH_ERROR. An
// *Error already in the chain is copied, as From does.
func FromTokenFetch(err error) *Error {
	if err == nil {
		return nil
	}
	if e, ok := As(err); ok && e != nil {
		return e.copyFor(err)
	}
	e := fromAuth(err)
	if e == nil {
		e = tokenUnreachable(err)
	}
	if e == nil {
		e = build(AuthError, false, "", "could not obtain Google credentials", DefaultHint(AuthError))
	}
	return e.WithCause(err)
}

// tokenRefused is the error for a token endpoint that answered no.
func tokenRefused(status int, code string) *Error {
	msg := "could not obtain Google credentials: the token service refused the request"
	switch {
	case oauthCodeRE().MatchString(code):
		msg += fmt.Sprintf(" (%s)", code)
	case status > 0:
		msg += fmt.Sprintf(" (HTTP %d)", status)
	}
	if status >= 500 {
		return build(AuthError, true, "", msg,
			"The Google token service failed; retry later. If it keeps failing, ask the user to run `gcloud auth application-default login` or to check GOOGLE_APPLICATION_CREDENTIALS and the service account.")
	}
	return build(AuthError, false, "", msg, DefaultHint(AuthError))
}

func statusOf(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

// tokenUnreachable returns the error for a token fetch that got no answer,
// or nil when err is not one.
func tokenUnreachable(err error) *Error {
	var ne net.Error
	if !unreachable(err) && !(errors.As(err, &ne) && ne.Timeout()) &&
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, io.ErrUnexpectedEOF) &&
		!networkTextRE().MatchString(errText(err)) {
		return nil
	}
	return build(Unavailable, true, "", "the Google token service could not be reached to obtain credentials",
		"The network or Google's token service is having trouble; retry later. If it keeps failing, ask the user to check this machine's network (DNS, proxy, firewall); the credentials themselves may be fine.")
}

// networkTextRE recognises a failure with no answer in text, for errors
// that carry their cause only as text (oauth2 wraps with %v).
var networkTextRE = lazyRegexp(`(?i)no such host|server misbehaving|temporary failure in name resolution|connection refused|connection reset|broken pipe|network is unreachable|no route to host|host is unreachable|i/o timeout|TLS handshake timeout|context deadline exceeded|Client\.Timeout exceeded|timeout awaiting response headers|unexpected EOF|: EOF$`)

// metadataNotDefinedRE is the metadata server saying it has no token for
// the asked scopes or account (cloud.google.com/go/compute/metadata).
var metadataNotDefinedRE = lazyRegexp(`metadata: GCE metadata "[^"]*token[^"]*" not defined`)

// tokenHosts serve Google credentials: the OAuth token endpoints, the
// security token and IAM credentials services, and the metadata server.
var tokenHosts = map[string]bool{
	"oauth2.googleapis.com": true, "accounts.google.com": true, "sts.googleapis.com": true,
	"iamcredentials.googleapis.com": true, "metadata.google.internal": true, "169.254.169.254": true,
}

// tokenURL reports whether err is a request to a credentials endpoint.
func tokenURL(err error) bool {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return false
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil {
		return false
	}
	if h := u.Hostname(); tokenHosts[h] || h == "www.googleapis.com" && strings.HasPrefix(u.Path, "/oauth2/") {
		return true
	}
	return false
}

// ---- context ----

func fromContext(err error) *Error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return build(DeadlineExceeded, true, "", "the request ran out of time before it finished", DefaultHint(DeadlineExceeded))
	case errors.Is(err, context.Canceled):
		return build(DeadlineExceeded, false, "", "the request was cancelled before it finished",
			"The request was cancelled (by the client or a server shutdown); send it again only if it is still needed.")
	}
	return nil
}

// ---- TLS and endpoint misconfiguration ----

const hintEndpoint = "This is a configuration problem, not a passing one: ask the user to check the --endpoint flag (an https:// URL whose certificate this machine trusts). Retrying will not help."

// fromTLS maps failures that come from talking to the wrong endpoint the
// wrong way. They never heal by themselves, so they are not retryable even
// though the code is UNAVAILABLE.
func fromTLS(err error) *Error {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		systemRoots      x509.SystemRootsError
		verification     *tls.CertificateVerificationError
		recordHeader     tls.RecordHeaderError
	)
	msg := ""
	switch {
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid),
		errors.As(err, &systemRoots), errors.As(err, &verification):
		msg = "the BigQuery endpoint's TLS certificate is not trusted"
	case errors.As(err, &recordHeader):
		msg = "the BigQuery endpoint does not speak TLS"
	default:
		s := errText(err)
		switch {
		case strings.Contains(s, "server gave HTTP response to HTTPS client"):
			msg = "the BigQuery endpoint does not speak TLS"
		case strings.Contains(s, "unsupported protocol scheme"):
			msg = "the BigQuery endpoint URL has an unsupported scheme"
		default:
			return nil
		}
	}
	return build(Unavailable, false, "", msg, hintEndpoint)
}

// ---- network ----

// fromNetwork maps failures where no response came back at all.
func fromNetwork(err error) *Error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return build(DeadlineExceeded, true, "", "BigQuery did not answer in time",
			"Retry later; if it keeps timing out, "+lowerFirst(DefaultHint(DeadlineExceeded)))
	}
	if !unreachable(err) {
		return nil
	}
	return build(Unavailable, true, "", "BigQuery could not be reached",
		"The network or BigQuery is having trouble; retry later. If it keeps failing, ask the user to check the network and the --endpoint flag.")
}

func unreachable(err error) bool {
	for _, errno := range []syscall.Errno{
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.ENETUNREACH, syscall.EHOSTUNREACH,
	} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
		return true
	}
	var dns *net.DNSError
	var op *net.OpError
	return errors.As(err, &dns) || errors.As(err, &op)
}

// ---- helpers ----

// errText is err.Error() for string matching, safe against the Error
// methods that panic on half-built values (oauth2.RetrieveError and
// auth.Error dereference a nil Response).
func errText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	return err.Error()
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
