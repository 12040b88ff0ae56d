package governance

import (
	"fmt"
	"path"
	"strings"
)

// KMSKeys are the Cloud KMS keys statements may name under a dataset
// allowlist (--kms-keys): KEYS.KEYSET_CHAIN and the other functions that
// encrypt or decrypt with a key, DLP_KEY_CHAIN, and the kms_key_name
// options of DDL. BigQuery asks Cloud KMS with the job's credentials, in
// whatever project the key lives, which the dataset allowlist cannot see;
// so under an allowlist every key is refused unless the operator lists
// it. A nil *KMSKeys lists none; every method is safe to call on it.
type KMSKeys struct {
	patterns [][4]string
	spec     string
}

// ParseKMSKeys reads a comma-separated list of key resource names,
// projects/P/locations/L/keyRings/R/cryptoKeys/K (gcp-kms:// before it is
// allowed), each part a path.Match pattern ("*" a wildcard within a
// part). An empty spec returns nil: none.
func ParseKMSKeys(spec string) (*KMSKeys, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	k := &KMSKeys{}
	var shown []string
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.TrimPrefix(strings.TrimSpace(entry), "gcp-kms://")
		if entry == "" {
			continue
		}
		parts := strings.Split(entry, "/")
		if len(parts) != 8 || parts[0] != "projects" || parts[2] != "locations" || parts[4] != "keyRings" || parts[6] != "cryptoKeys" {
			return nil, fmt.Errorf("kms-keys: %q is not projects/PROJECT/locations/LOCATION/keyRings/RING/cryptoKeys/KEY", entry)
		}
		p := [4]string{parts[1], parts[3], parts[5], parts[7]}
		for _, part := range p {
			if _, err := path.Match(part, ""); err != nil || part == "" {
				return nil, fmt.Errorf("kms-keys: %q is not a valid pattern", entry)
			}
		}
		k.patterns = append(k.patterns, p)
		shown = append(shown, entry)
	}
	if len(k.patterns) == 0 {
		return nil, fmt.Errorf("kms-keys: %q lists no key", spec)
	}
	k.spec = strings.Join(shown, ", ")
	return k, nil
}

// String is the list as configured, for hints; "none" when empty.
func (k *KMSKeys) String() string {
	if k == nil {
		return "none"
	}
	return k.spec
}

// Allows reports whether a statement may name the key [project, location,
// keyRing, key]. Key names are compared exactly, as Cloud KMS does.
func (k *KMSKeys) Allows(key []string) bool {
	if k == nil || len(key) != 4 {
		return false
	}
	for _, p := range k.patterns {
		if match(p[0], key[0]) && match(p[1], key[1]) && match(p[2], key[2]) && match(p[3], key[3]) {
			return true
		}
	}
	return false
}
