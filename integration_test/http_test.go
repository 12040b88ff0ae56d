package integration_test

import (
	"net/http"
)

func httpDefault() http.RoundTripper { return http.DefaultTransport.(*http.Transport).Clone() }
