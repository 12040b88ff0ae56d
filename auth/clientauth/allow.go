package clientauth

import (
	"fmt"
	"strings"
)

// allowlist holds the principals allowed in: e-mails and whole domains.
type allowlist struct {
	emails  map[string]bool
	domains map[string]bool
}

func newAllowlist(entries []string) (allowlist, error) {
	a := allowlist{emails: map[string]bool{}, domains: map[string]bool{}}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		switch {
		case e == "":
		case strings.HasPrefix(e, "domain:"):
			d := strings.TrimPrefix(e, "domain:")
			if d == "" || strings.Contains(d, "@") {
				return a, fmt.Errorf("allowed principal %q: want domain:example.com", e)
			}
			a.domains[d] = true
		case strings.Count(e, "@") == 1:
			a.emails[e] = true
		default:
			return a, fmt.Errorf("allowed principal %q: want an e-mail or domain:example.com", e)
		}
	}
	return a, nil
}

func (a allowlist) empty() bool { return len(a.emails) == 0 && len(a.domains) == 0 }

// allows reports whether a verified e-mail is allowed; an empty list
// allows everyone.
func (a allowlist) allows(email string) bool {
	if a.empty() {
		return true
	}
	email = strings.ToLower(email)
	if a.emails[email] {
		return true
	}
	_, domain, ok := strings.Cut(email, "@")
	return ok && a.domains[domain]
}
