package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzLines feeds arbitrary bytes to the filter and then to a real server.
// The filter must account for every non-blank line exactly once (passed on
// or answered with -32700/-32600), pass on only what the SDK would decode, and
// the server must still answer a ping afterwards.
//
//	go test -fuzz FuzzLines ./stdio
func FuzzLines(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"foo":"bar"}`, `42`, `"x"`, `null`, "\x00", "", "\r\n\n", `{"a":"\"[{"}`,
		strings.Repeat("[", 300), strings.Repeat("{\"a\":", 300),
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"\xfe\"}",
		`{"jsonrpc":"2.0","\u0069d":3,"m\u0065thod":"ping","method":"x","ID":"y"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":1,"Code":2,"message":"m","data":[1]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxLine, maxDepth = 512, 16
		var replies bytes.Buffer
		var passed []jsonrpc.Message
		pass := func(m jsonrpc.Message) error { passed = append(passed, m); return nil }
		fl := &filter{in: bytes.NewReader(data), pass: pass, out: &replies, maxLine: maxLine, maxDepth: maxDepth}
		if err := fl.run(); err != nil {
			t.Fatalf("run: %v", err)
		}
		want := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) > maxLine || len(trimSpace(l)) > 0 {
				want++
			}
		}
		got := 0
		for _, m := range passed {
			got++
			// What is passed on is the SDK's own decoding of the line, and
			// the SDK can write it back.
			if m == nil {
				t.Error("passed on no message")
			} else if _, err := jsonrpc.EncodeMessage(m); err != nil {
				t.Errorf("passed on a message the SDK cannot encode (%v): %#v", err, m)
			}
		}
		for _, l := range lines(replies.Bytes()) {
			got++
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   jsonrpc.Error   `json:"error"`
			}
			if err := json.Unmarshal(l, &r); err != nil || r.JSONRPC != "2.0" ||
				(r.Error.Code != jsonrpc.CodeParseError && r.Error.Code != jsonrpc.CodeInvalidRequest) ||
				(string(r.ID) != "null" && !validID(r.ID)) {
				t.Errorf("bad reply %q", l)
			}
		}
		if got != want {
			t.Errorf("%d non-blank lines, %d passed on or answered", want, got)
		}
		// What is passed on is what the SDK's own decoder makes of the
		// line, though the SDK never decodes it.
		for _, l := range bytes.Split(data, []byte("\n")) {
			if l = trimSpace(l); len(l) > 0 && len(l) <= maxLine {
				sameAsSDK(t, l)
			}
		}

		// The same bytes against a real server: it survives and still serves.
		s := startSession(t, &Transport{MaxLineBytes: maxLine, MaxDepth: maxDepth})
		s.send(string(data))
		s.send(`{"jsonrpc":"2.0","id":"fuzz-ping-7c1e","method":"ping"}`)
		for {
			l := s.next()
			if !json.Valid([]byte(l)) {
				t.Errorf("the server wrote a line that is not JSON: %q", l)
			}
			if l == `{"jsonrpc":"2.0","id":"fuzz-ping-7c1e","result":{}}` {
				break
			}
		}
	})
}

func lines(b []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, bytes.Clone(sc.Bytes()))
	}
	return out
}
