package resilience

import (
	"context"

	"golang.org/x/oauth2"
)

// TokenSource runs token fetches under the Auth policy, with a breaker of
// their own (scope [CredentialsScope]): credentials fail for every project at
// once. Its failures are marked as already retried, so the BigQuery call that
// needed the token does not retry them again and multiply the attempts.
func (e *Executor) TokenSource(ts oauth2.TokenSource) oauth2.TokenSource {
	return &retryingSource{src: ts, exec: e}
}

type retryingSource struct {
	src  oauth2.TokenSource
	exec *Executor
}

func (r *retryingSource) Token() (*oauth2.Token, error) {
	var tok *oauth2.Token
	err := r.exec.Do(context.Background(), Auth, CredentialsScope, func(context.Context) error {
		var err error
		tok, err = r.src.Token()
		return err
	})
	if err != nil {
		return nil, &retriedError{err: err}
	}
	return tok, nil
}
