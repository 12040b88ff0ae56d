package stdio

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLeadingRequestID(t *testing.T) {
	long := strings.Repeat("x", idScanBytes)
	for _, tc := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{`, "7"},
		{`{"id":-3,"method":"ping"`, "-3"},
		{` { "method" : "ping" , "id" : "a\"b" , "params": [[[[`, `"a\"b"`},
		{`{"jsonrpc":"2.0","params":{"a":[1,{"b":"}"}]},"id":"p","method":"x","params":`, `"p"`},
		{`{"flag":true,"n":null,"id":1,"method":"m","x":[`, "1"},
		// Not trusted: no method, a response, doubtful ids or names.
		{`{"jsonrpc":"2.0","id":7,"params":{`, ""},
		{`{"jsonrpc":"2.0","id":7,"result":{"method":"x"`, ""},
		{`{"jsonrpc":"2.0","id":7,"method":"x","error":{`, ""},
		{`{"id":7,"\u006dethod":"x","\u0072esult":{`, ""},
		{`{"id":1,"id":2,"method":"x"`, ""},
		{`{"id":1.5,"method":"x"`, ""},
		{`{"id":01,"method":"x"`, ""},
		{`{"id":+1,"method":"x"`, ""},
		{`{"id":123456789012345678901234567890,"method":"x"`, ""},
		{`{"id":null,"method":"x"`, ""},
		{`{"id":{"a":1},"method":"x"`, ""},
		{`{"id":"\x","method":"x"`, ""},
		{`{"id":"a` + "\x01" + `","method":"x"`, ""},
		{`{"id":12`, ""},
		{`{"method":null,"id":1`, ""},
		{`[{"id":1,"method":"x"}]`, ""},
		{`"id":1,"method":"x"`, ""},
		{`{"jsonrpc":"` + long + `","id":1,"method":"x"`, ""},
		{`{"jsonrpc":"2.0","method":"x","id":1` + long, ""},
		{``, ""},
	} {
		if got := string(leadingRequestID([]byte(tc.line))); got != tc.want {
			t.Errorf("%.80s: id %q, want %q", tc.line, got, tc.want)
		}
	}
}

// FuzzLeadingRequestID: on any bytes the scan ends, and an id it returns
// is one a reply can carry; when the whole line is a JSON object, the id is
// that object's "id" and the object has a string "method" and no "result"
// or "error".
//
//	go test -run '^$' -fuzz FuzzLeadingRequestID ./stdio
func FuzzLeadingRequestID(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":[1]}}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"id":1,"id":2,"method":"x"}`,
		`{"a":{"b":"}\"]"},"id":-1,"method":"m"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		id := leadingRequestID(line)
		if id == nil {
			return
		}
		if !validID(id) || !json.Valid(id) {
			t.Fatalf("id %q from %q", id, line)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) != nil {
			return
		}
		var method string
		_, hasResult := m["result"]
		_, hasError := m["error"]
		if string(m["id"]) != string(id) || json.Unmarshal(m["method"], &method) != nil || hasResult || hasError {
			t.Fatalf("id %q from %q, whose id is %q", id, line, m["id"])
		}
	})
}
