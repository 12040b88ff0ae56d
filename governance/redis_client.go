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

// NewRedisClient parses cfg.State, a redis:// or rediss:// URL (rediss:
// TLS), into a client. The password comes from the URL or, when set, from
// cfg.StatePasswordFile (Memorystore's AUTH string, from Secret Manager);
// the CA bundle the server's certificate is checked against from
// cfg.StateCAFile (Memorystore's server CA for in-transit encryption). No
// connection is made.
func NewRedisClient(cfg Config) (*redis.Client, error) {
	opts, err := redis.ParseURL(cfg.State)
	if err != nil {
		// The parser's message may quote the URL, password included.
		return nil, fmt.Errorf("state: %s is not a redis:// or rediss:// URL", RedactURL(cfg.State))
	}
	if cfg.StatePasswordFile != "" {
		b, err := os.ReadFile(cfg.StatePasswordFile)
		if err != nil {
			return nil, fmt.Errorf("state password file: %w", err)
		}
		opts.Password = strings.TrimSpace(string(b))
	}
	if cfg.StateCAFile != "" {
		if opts.TLSConfig == nil {
			return nil, errors.New("a state CA file needs a rediss:// URL (TLS)")
		}
		pem, err := os.ReadFile(cfg.StateCAFile)
		if err != nil {
			return nil, fmt.Errorf("state CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("state CA file %s holds no PEM certificate", cfg.StateCAFile)
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
		return nil, fmt.Errorf("state: %s has no host:port", RedactURL(cfg.State))
	}
	return redis.NewClient(opts), nil
}

// quiet silences go-redis's own log lines (plain text on stderr, outside
// the server's JSON log); the state logs what matters itself.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once
