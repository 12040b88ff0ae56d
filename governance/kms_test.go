package governance

import "testing"

// TestKMSKeys: a Cloud KMS key is allowed only when --kms-keys lists it;
// nothing is allowed without the flag, and a malformed entry stops the
// server from starting.
func TestKMSKeys(t *testing.T) {
	k, err := ParseKMSKeys("projects/p/locations/us/keyRings/r/cryptoKeys/k, gcp-kms://projects/q/locations/*/keyRings/ring/cryptoKeys/pii_*")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  []string
		want bool
	}{
		{[]string{"p", "us", "r", "k"}, true},
		{[]string{"p", "eu", "r", "k"}, false},
		{[]string{"P", "us", "r", "k"}, false},
		{[]string{"p", "us", "r", "K"}, false},
		{[]string{"other", "us", "r", "k"}, false},
		{[]string{"q", "europe-west1", "ring", "pii_email"}, true},
		{[]string{"q", "us", "ring", "secrets"}, false},
		{[]string{"q", "us", "ring2", "pii_email"}, false},
		{[]string{"p", "us", "r"}, false},
	} {
		if got := k.Allows(tc.key); got != tc.want {
			t.Errorf("Allows(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
	var none *KMSKeys
	if none.Allows([]string{"p", "us", "r", "k"}) {
		t.Error("no --kms-keys allowed a key")
	}
	if none.String() != "none" || k.String() != "projects/p/locations/us/keyRings/r/cryptoKeys/k, projects/q/locations/*/keyRings/ring/cryptoKeys/pii_*" {
		t.Errorf("String() = %q, %q", none.String(), k.String())
	}
	for _, bad := range []string{"k", "p/us/r/k", "projects/p/locations/us/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1",
		"projects/p/locations/us/keyRings/r/keys/k", "projects/[/locations/us/keyRings/r/cryptoKeys/k", "projects//locations/us/keyRings/r/cryptoKeys/k", " , "} {
		if _, err := ParseKMSKeys(bad); err == nil {
			t.Errorf("ParseKMSKeys(%q) accepted it", bad)
		}
	}
	if k, err := ParseKMSKeys(" "); k != nil || err != nil {
		t.Errorf("ParseKMSKeys(empty) = %v, %v", k, err)
	}
}
