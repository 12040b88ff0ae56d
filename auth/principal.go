package auth

import "encoding/json"

// principal returns the client_email of a service account key file, the only
// credentials file that names the identity it acts as. Other kinds (user
// credentials, external accounts) yield "": the identity is then unknown
// until BigQuery is called.
func principal(credsJSON []byte) string {
	if len(credsJSON) == 0 {
		return ""
	}
	var f struct {
		ClientEmail string `json:"client_email"`
	}
	if json.Unmarshal(credsJSON, &f) != nil {
		return ""
	}
	return f.ClientEmail
}
