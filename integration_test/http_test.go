package integration_test

import (
	"net/http"
)

func httpDefault() http.RoundTripper { return http.DefaultTransport.(*http.Transport).Clone() }

func httpGet(url string) (int, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
