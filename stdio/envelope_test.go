package stdio

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sameAsSDK fails unless check passes line on as the message the SDK's own
// decoder makes of it: the same id, method, params, result and error, as
// the SDK writes them back.
func sameAsSDK(t *testing.T, line []byte) {
	t.Helper()
	got, rej := check(line, DefaultMaxDepth)
	want, err := jsonrpc.DecodeMessage(line)
	if rej != nil {
		if err == nil {
			t.Logf("refused (%s) a line the SDK decodes: %s", rej.msg, line)
		}
		return
	}
	if err != nil {
		t.Fatalf("passed a line the SDK refuses (%v): %s", err, line)
	}
	g, gerr := jsonrpc.EncodeMessage(got)
	w, werr := jsonrpc.EncodeMessage(want)
	if gerr != nil || werr != nil || !bytes.Equal(g, w) {
		t.Errorf("line %s\nbuilt   %s (%v)\nSDK's   %s (%v)", line, g, gerr, w, werr)
	}
}

func TestMessagesAreWhatTheSDKDecodes(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a\"b\\u00e9<&>","method":"tools/call","params":{"name":"x", "arguments" : { "sql" : "SELECT 1" } }}`,
		`{ "id" : -7 , "method" : "ping" , "jsonrpc" : "2.0" }`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b","params":{"x":1},"params":{"y":[2,{"z":"}"}]}}`,
		`{"jsonrpc":"2.0","\u0069d":3,"m\u0065thod":"ping","Params":[1],"ID":"x"}`,
		`{"jsonrpc":"2.0","id":3,"method":"","extra":{"a":[1,2,{"b":null}]},"n":-1.5e3,"t":true}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":"s","result":null}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"m\u00e9","data":{"k":[1]}}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-1,"Code":5,"message":"m","MESSAGE":"n"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"\xfe\"}",
	} {
		sameAsSDK(t, []byte(line))
	}
}

// TestEncodeMatchesSDK: the envelope written around a result is byte for
// byte what jsonrpc.EncodeMessage writes, for every kind of id.
func TestEncodeMatchesSDK(t *testing.T) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"{\"a\":\"<&>\"}"}],"structuredContent":{"a":"<&>"}}`)
	var msgs []jsonrpc.Message
	for _, id := range []any{float64(0), float64(-12), float64(1 << 53), "", "x", `q"\<&>` + "\u00e9\u2028\x01"} {
		jid, err := jsonrpc.MakeID(id)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs,
			&jsonrpc.Response{ID: jid, Result: result},
			&jsonrpc.Response{ID: jid, Result: json.RawMessage(`{}`)},
			&jsonrpc.Response{ID: jid, Error: &jsonrpc.Error{Code: -32602, Message: "bad"}},
			&jsonrpc.Request{ID: jid, Method: "sampling/createMessage", Params: json.RawMessage(`{"a":1}`)})
	}
	msgs = append(msgs, &jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progress":1}`)},
		// Not on one line: left to the SDK, which compacts it.
		&jsonrpc.Response{ID: msgs[0].(*jsonrpc.Response).ID, Result: json.RawMessage("{\n\"a\": 1\n}")})
	for _, m := range msgs {
		got, err := encode(m)
		if err != nil {
			t.Fatalf("encode %#v: %v", m, err)
		}
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		if want = append(want, '\n'); !bytes.Equal(got, want) {
			t.Errorf("encode\n got %s\nwant %s", got, want)
		}
	}
}
