package stdio

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// envelope holds the top-level members of a JSON-RPC message as raw JSON
// values; a member that is absent is nil (a present value is never empty).
type envelope struct {
	version, id, method, params, result, error json.RawMessage
}

// readEnvelope reads the top-level members of obj, a line that json.Valid
// accepted and that starts with '{'. Member names are matched exactly (as
// the SDK's decoder matches them), after unescaping; a repeated member
// keeps its last value, as every JSON decoder here does. It is one pass
// over the line, without recursion.
func readEnvelope(obj []byte) envelope {
	var e envelope
	eachMember(obj, func(name []byte, v json.RawMessage) {
		switch string(name) {
		case "jsonrpc":
			e.version = v
		case "id":
			e.id = v
		case "method":
			e.method = v
		case "params":
			e.params = v
		case "result":
			e.result = v
		case "error":
			e.error = v
		}
	})
	return e
}

// eachMember calls fn with each member of obj, a valid JSON object, in
// order: its name unescaped and its value as it appears.
func eachMember(obj []byte, fn func(name []byte, v json.RawMessage)) {
	s := &scanner{b: obj}
	if !s.consume('{') {
		return
	}
	for {
		key, ok := s.str()
		if !ok || !s.consume(':') {
			return
		}
		s.ws()
		start := s.i
		if !s.skipValue() {
			return
		}
		name := key[1 : len(key)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			var u string
			if json.Unmarshal(key, &u) != nil {
				return
			}
			name = []byte(u)
		}
		fn(name, obj[start:s.i])
		if !s.consume(',') {
			return
		}
	}
}

// unquote is the Go string of a JSON string value.
func unquote(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// message builds the SDK's message from a checked envelope, as the SDK's
// jsonrpc.DecodeMessage would from the line, without decoding the line a
// second and third time (the SDK's decoder allocates a 32 KB buffer for
// each). The raw values point into line, which the caller no longer reuses.
func (e envelope) message() (jsonrpc.Message, bool) {
	var id jsonrpc.ID
	if e.id != nil {
		var v any
		if e.id[0] == '"' {
			s, ok := unquote(e.id)
			if !ok {
				return nil, false
			}
			v = s
		} else {
			// The SDK decodes a numeric id as a float64 and truncates it;
			// the same here, so an id means what it means to the SDK.
			f, err := strconv.ParseFloat(string(e.id), 64)
			if err != nil {
				return nil, false
			}
			v = f
		}
		var err error
		if id, err = jsonrpc.MakeID(v); err != nil {
			return nil, false
		}
	}
	if e.method != nil {
		method, ok := unquote(e.method)
		if !ok {
			return nil, false
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: e.params}, true
	}
	if !id.IsValid() {
		return nil, false
	}
	r := &jsonrpc.Response{ID: id, Result: e.result}
	if e.error != nil {
		r.Error = wireError(e.error)
	}
	return r, true
}

// wireError reads an error object with the SDK's field names, exactly
// matched.
func wireError(raw json.RawMessage) *jsonrpc.Error {
	we := &jsonrpc.Error{}
	eachMember(raw, func(name []byte, v json.RawMessage) {
		switch string(name) {
		case "code":
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				we.Code = n
			}
		case "message":
			we.Message, _ = unquote(v)
		case "data":
			we.Data = v
		}
	})
	return we
}

// encode renders a message as one line, newline included. A successful
// response (nearly every line the server writes) is enveloped here around
// its result, which the SDK has just marshalled to compact JSON:
// jsonrpc.EncodeMessage would marshal the envelope by reflection and scan
// and copy the whole result once more. Everything else, and a result that
// is not on one line, goes through EncodeMessage. TestEncodeMatchesSDK
// holds the two to the same bytes.
func encode(m jsonrpc.Message) ([]byte, error) {
	if r, ok := m.(*jsonrpc.Response); ok && r.Error == nil && len(r.Result) > 0 && bytes.IndexByte(r.Result, '\n') < 0 {
		buf := make([]byte, 0, len(r.Result)+48)
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		switch id := r.ID.Raw().(type) {
		case int64:
			buf = strconv.AppendInt(buf, id, 10)
		case string:
			buf = appendString(buf, id)
		default:
			return encodeSDK(m)
		}
		buf = append(buf, `,"result":`...)
		buf = append(buf, r.Result...)
		return append(buf, '}', '\n'), nil
	}
	return encodeSDK(m)
}

func encodeSDK(m jsonrpc.Message) ([]byte, error) {
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// appendString appends s as a JSON string the way the SDK's encoder writes
// it (encoding/json without HTML escaping).
func appendString(buf []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return append(buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}
