package auth

import "testing"

func TestPrincipal(t *testing.T) {
	for name, tc := range map[string]struct{ json, want string }{
		"service account key": {`{"type":"service_account","client_email":"sa@p.iam.gserviceaccount.com","private_key":"x"}`, "sa@p.iam.gserviceaccount.com"},
		"user credentials":    {`{"type":"authorized_user","client_id":"c","refresh_token":"r"}`, ""},
		// An impersonation file names its target only inside a URL; the
		// identity it acts as is not claimed from it.
		"impersonation": {`{"type":"impersonated_service_account","service_account_impersonation_url":"https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/t@p.iam.gserviceaccount.com:generateAccessToken"}`, ""},
		"not JSON":      {`not json`, ""},
		"empty":         {``, ""},
	} {
		if got := principal([]byte(tc.json)); got != tc.want {
			t.Errorf("%s: principal = %q, want %q", name, got, tc.want)
		}
	}
}
