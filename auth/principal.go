package auth

import "encoding/json"

// principal returns the e-mail a credentials file names, if any: a service
// account key's client_email, or an impersonation target.
func principal(credsJSON []byte) string {
	if len(credsJSON) == 0 {
		return ""
	}
	var f struct {
		ClientEmail                    string `json:"client_email"`
		ServiceAccountImpersonationURL string `json:"service_account_impersonation_url"`
	}
	if json.Unmarshal(credsJSON, &f) != nil {
		return ""
	}
	return f.ClientEmail
}
