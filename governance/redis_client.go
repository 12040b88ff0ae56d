package governance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisURL is a parsed --state value, with the password and TLS settings
// that go with it.
type RedisURL struct {
	// PasswordFile, when set, holds the password (Memorystore's AUTH
	// string, from Secret Manager) instead of the URL.
	PasswordFile string
	// CAFile, when set, is the PEM bundle the server's certificate is
	// checked against (Memorystore's server CA for in-transit encryption).
	CAFile string
}

// IsRedisURL reports whether s names a Redis store rather than memory.
func IsRedisURL(s string) bool {
	return strings.HasPrefix(s, "redis://") || strings.HasPrefix(s, "rediss://")
}

// RedactURL is a Redis URL fit for logs and health: no password.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "redis://(unparsable)"
	}
	return u.Redacted()
}

// NewRedisClient parses a redis:// or rediss:// URL (rediss: TLS) into a
// client. The password comes from the URL or, when set, from
// o.PasswordFile; the CA bundle from o.CAFile. No connection is made.
func NewRedisClient(rawURL string, o RedisURL) (*redis.Client, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		// The parser's message may quote the URL, password included.
		return nil, fmt.Errorf("state: %s is not a redis:// or rediss:// URL", RedactURL(rawURL))
	}
	if o.PasswordFile != "" {
		b, err := os.ReadFile(o.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("state password file: %w", err)
		}
		opts.Password = strings.TrimSpace(string(b))
	}
	if o.CAFile != "" {
		if opts.TLSConfig == nil {
			return nil, errors.New("a state CA file needs a rediss:// URL (TLS)")
		}
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("state CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("state CA file %s holds no PEM certificate", o.CAFile)
		}
		opts.TLSConfig.RootCAs = pool
		if opts.TLSConfig.MinVersion == 0 {
			opts.TLSConfig.MinVersion = tls.VersionTLS12
		}
	}
	// Short timeouts: a budget step waits on the store before every query,
	// and the retry policy and breaker decide what a slow store means.
	opts.DialTimeout = 2 * time.Second
	opts.ReadTimeout = time.Second
	opts.WriteTimeout = time.Second
	// resilience retries (and its breaker decides when to stop), so the
	// client makes one attempt and one dial.
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
		return nil, fmt.Errorf("state: %s has no host:port", RedactURL(rawURL))
	}
	return redis.NewClient(opts), nil
}

// quiet silences go-redis's own log lines (plain text on stderr, outside
// the server's JSON log); the state logs what matters itself.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once
