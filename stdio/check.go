package stdio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rejection is a line the server answers itself instead of passing it on.
type rejection struct {
	code int64
	msg  string
	// id is the request's own id when one could be read (a string or an
	// integer, as MCP requires); nil means the reply carries "id": null, as
	// JSON-RPC 2.0 §5 asks when the id cannot be determined.
	id json.RawMessage
}

// check decides what happens to one line of input: a nil rejection means
// it is a well-formed JSON-RPC 2.0 message to pass on, built as the SDK's
// decoder would build it; otherwise the rejection says how to answer it.
// It never recurses, so no input can exhaust the stack, and the SDK never
// decodes a line itself, so a line it passes can never end the session.
func check(line []byte, maxDepth int) (jsonrpc.Message, *rejection) {
	if d := depth(line); d > maxDepth {
		return nil, &rejection{code: jsonrpc.CodeInvalidRequest, msg: fmt.Sprintf("Invalid Request: JSON nested deeper than %d levels", maxDepth), id: leadingRequestID(line)}
	}
	if !json.Valid(line) {
		return nil, &rejection{code: jsonrpc.CodeParseError, msg: "Parse error: the line is not valid JSON"}
	}
	switch line[0] {
	case '{':
	case '[':
		return nil, &rejection{code: jsonrpc.CodeInvalidRequest, msg: "Invalid Request: batches are not supported; send one JSON-RPC message per line"}
	default:
		return nil, &rejection{code: jsonrpc.CodeInvalidRequest, msg: "Invalid Request: a JSON-RPC message is a JSON object"}
	}
	// The message's raw values point into the line, and the filter reuses
	// its buffer for the next one.
	e := readEnvelope(bytes.Clone(line))
	id, hasID := e.id, e.id != nil
	isRequest := e.method != nil
	var replyID json.RawMessage
	// Echo the id only for requests: an id on a response belongs to the
	// server's own numbering, and echoing it could answer the wrong call.
	if isRequest && hasID && validID(id) {
		replyID = id
	}
	invalid := func(msg string) *rejection {
		return &rejection{code: jsonrpc.CodeInvalidRequest, msg: "Invalid Request: " + msg, id: replyID}
	}
	if version, ok := unquote(e.version); !ok || version != "2.0" {
		return nil, invalid(`"jsonrpc" must be "2.0"`)
	}
	if hasID && !validID(id) {
		return nil, invalid(`"id" must be a string or an integer`)
	}
	hasResult, hasError := e.result != nil, e.error != nil
	if isRequest {
		if e.method[0] != '"' {
			return nil, invalid(`"method" must be a string`)
		}
		if p := e.params; p != nil && !isObject(p) {
			return nil, invalid(`"params" must be an object`)
		}
		if hasResult || hasError {
			return nil, invalid(`a request has no "result" or "error"`)
		}
	} else {
		switch {
		case !hasID:
			return nil, invalid(`a message without "method" is a response and needs an "id"`)
		case hasResult == hasError:
			return nil, invalid(`a response has exactly one of "result" and "error"`)
		case hasError && !validErrorObject(e.error):
			return nil, invalid(`"error" must be an object with an integer "code" and a string "message"`)
		}
	}
	// The message is built here as the SDK's decoder would build it, so
	// the SDK is never handed a line to decode: nothing it could refuse
	// (and end the session on) reaches it.
	msg, ok := e.message()
	if !ok {
		return nil, invalid("the message cannot be decoded")
	}
	return msg, nil
}

// validID reports whether raw is an id MCP allows: a string or an integer
// that fits in int64 (MCP forbids null; the SDK stores numbers as int64).
func validID(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		return true
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		_, err := strconv.ParseInt(string(raw), 10, 64)
		return err == nil
	}
	return false
}

func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

func validErrorObject(raw json.RawMessage) bool {
	var e struct {
		Code    *json.Number `json:"code"`
		Message *string      `json:"message"`
	}
	if !isObject(raw) || json.Unmarshal(raw, &e) != nil || e.Code == nil || e.Message == nil {
		return false
	}
	_, err := e.Code.Int64()
	return err == nil
}

// depth is the deepest nesting of arrays and objects in data, found in one
// pass without recursion. Brackets inside strings do not count.
func depth(data []byte) int {
	var d, most int
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString && b == '"':
			inString = false
		case inString:
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			d++
			most = max(most, d)
		case b == '}' || b == ']':
			d--
		}
	}
	return most
}

// reply is a JSON-RPC error response. The SDK's encoder omits a null id, so
// the envelope is written here; the error object is the SDK's own type.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *jsonrpc.Error  `json:"error"`
}

// encode renders the rejection as one line of output, newline included.
func (r *rejection) encode() []byte {
	id := r.id
	if id == nil {
		id = json.RawMessage("null")
	}
	// id came from a validated line and Error has only plain fields, so
	// Marshal cannot fail.
	data, _ := json.Marshal(reply{JSONRPC: "2.0", ID: id, Error: &jsonrpc.Error{Code: r.code, Message: r.msg}})
	return append(data, '\n')
}

// trimSpace trims the JSON whitespace (and the \r of a CRLF line end) around
// a line.
func trimSpace(line []byte) []byte {
	return bytes.Trim(line, " \t\r\n")
}
