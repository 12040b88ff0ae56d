package integration_test

// A protocol sweep: every method of the current MCP specification, sent as
// raw JSON-RPC to the built binary over both transports. Each request must
// get a result or a well-formed JSON-RPC error, no notification may be
// answered, and the server must answer a ping after each message.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
)

// sweepProtocols are the protocol versions the sweep initializes with: the
// current specification and the one most hosts speak.
var sweepProtocols = []string{"2025-11-25", "2025-06-18"}

// sweepCase is one message of the sweep. want is the JSON-RPC error code the
// specification requires, or 0 when a result or any error will do.
type sweepCase struct {
	method       string
	params       any // omitted when nil
	notification bool
	want         int
}

const (
	codeInvalidParams  = -32602
	codeMethodNotFound = -32601
)

func initializeParams(protocol string) map[string]any {
	return map[string]any{"protocolVersion": protocol, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "sweep", "version": "1"}}
}

func sweepCases(protocol string) []sweepCase {
	return []sweepCase{
		{method: "ping", params: map[string]any{}},
		{method: "ping"},
		{method: "initialize", params: initializeParams(protocol)}, // a second initialize
		{method: "tools/list", params: map[string]any{}},
		{method: "tools/list", params: map[string]any{"cursor": "no-such-cursor"}},
		{method: "tools/call", params: map[string]any{"name": "list_datasets", "arguments": map[string]any{}}},
		{method: "tools/call", params: map[string]any{"name": "get_table_schema", "arguments": map[string]any{"table": 42}}},
		{method: "tools/call", params: map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}, want: codeInvalidParams},
		{method: "tools/call"},
		{method: "resources/list", params: map[string]any{}},
		{method: "resources/templates/list", params: map[string]any{}},
		{method: "resources/read", params: map[string]any{"uri": "bigquery://demo-project/shop/orders"}},
		{method: "resources/subscribe", params: map[string]any{"uri": "bigquery://demo-project/shop/orders"}, want: codeMethodNotFound},
		{method: "resources/unsubscribe", params: map[string]any{"uri": "bigquery://demo-project/shop/orders"}, want: codeMethodNotFound},
		// No prompts: the capability is not declared, so neither method is served.
		{method: "prompts/list", params: map[string]any{}, want: codeMethodNotFound},
		{method: "prompts/get", params: map[string]any{"name": "no_such_prompt"}, want: codeMethodNotFound},
		{method: "completion/complete", params: map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "bigquery://{dataset}"}, "argument": map[string]any{"name": "dataset", "value": "sh"}}},
		{method: "logging/setLevel", params: map[string]any{"level": "debug"}},
		{method: "logging/setLevel", params: map[string]any{"level": "emergency"}},
		{method: "logging/setLevel", params: map[string]any{"level": "loud"}, want: codeInvalidParams},
		{method: "tasks/list", params: map[string]any{}},
		{method: "tasks/get", params: map[string]any{"taskId": "no-such-task"}},
		{method: "tasks/result", params: map[string]any{"taskId": "no-such-task"}},
		{method: "tasks/cancel", params: map[string]any{"taskId": "no-such-task"}},
		// Methods a server sends to a client, sent the wrong way.
		{method: "sampling/createMessage", params: map[string]any{"messages": []any{}, "maxTokens": 1}, want: codeMethodNotFound},
		{method: "elicitation/create", params: map[string]any{"message": "?", "requestedSchema": map[string]any{"type": "object"}}, want: codeMethodNotFound},
		{method: "roots/list", params: map[string]any{}, want: codeMethodNotFound},
		{method: "bigquery/no_such_method", params: map[string]any{}, want: codeMethodNotFound},
		{method: "notifications/initialized", notification: true},
		{method: "notifications/cancelled", params: map[string]any{"requestId": 999999, "reason": "sweep"}, notification: true},
		{method: "notifications/roots/list_changed", params: map[string]any{}, notification: true},
		{method: "notifications/progress", params: map[string]any{"progressToken": "sweep", "progress": 1}, notification: true},
		{method: "notifications/message", params: map[string]any{"level": "info", "data": "sent the wrong way"}, notification: true},
		{method: "notifications/no_such_notification", params: map[string]any{}, notification: true},
	}
}

// rpcMessage is any JSON-RPC 2.0 message.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (m rpcMessage) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// check reports what is wrong with m as the answer to c (empty when nothing).
func (c sweepCase) check(m rpcMessage) string {
	if m.JSONRPC != "2.0" {
		return fmt.Sprintf("jsonrpc is %q", m.JSONRPC)
	}
	if (len(m.Result) == 0) == (len(m.Error) == 0) {
		return "want exactly one of result and error"
	}
	if len(m.Error) == 0 {
		if c.want != 0 {
			return fmt.Sprintf("want JSON-RPC error %d, got a result", c.want)
		}
		return ""
	}
	var e struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(m.Error, &e); err != nil || e.Code == nil || e.Message == nil {
		return "error lacks an integer code or a message"
	}
	if *e.Code == 0 {
		return "error code 0 is no JSON-RPC error code"
	}
	if c.want != 0 && *e.Code != c.want {
		return fmt.Sprintf("want JSON-RPC error %d, got %d", c.want, *e.Code)
	}
	return ""
}

// rpcPeer is one transport's connection to the server.
type rpcPeer interface {
	// exchange sends one message and returns the messages the server sent
	// back for it (for stdio: everything up to the answer to wantID; for
	// HTTP: the response body).
	exchange(t *testing.T, msg []byte, wantID string) ([]rpcMessage, error)
}

func encodeMessage(t *testing.T, id int, method string, params any) []byte {
	t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != 0 {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sweep drives one session through every case.
func sweep(t *testing.T, p rpcPeer, protocol string) {
	id := 0
	request := func(method string, params any) (rpcMessage, error) {
		id++
		want := strconv.Itoa(id)
		msgs, err := p.exchange(t, encodeMessage(t, id, method, params), want)
		if err != nil {
			return rpcMessage{}, err
		}
		var answer *rpcMessage
		for _, m := range msgs {
			switch {
			case m.isResponse() && string(m.ID) == want:
				answer = &m
			case m.isResponse():
				// Every request has its own id: this answers a notification.
				return m, fmt.Errorf("unexpected response with id %s: %s %s", m.ID, m.Result, m.Error)
			case m.Method == "":
				return m, fmt.Errorf("not a JSON-RPC message: %+v", m)
			}
		}
		if answer == nil {
			return rpcMessage{}, fmt.Errorf("no answer with id %s among %d messages", want, len(msgs))
		}
		return *answer, nil
	}
	alive := func(after string) {
		t.Helper()
		if m, err := request("ping", nil); err != nil || len(m.Result) == 0 {
			t.Fatalf("after %s: ping: %v %s", after, err, m.Error)
		}
	}

	init, err := request("initialize", initializeParams(protocol))
	if err != nil || len(init.Result) == 0 {
		t.Fatalf("initialize: %v %s", err, init.Error)
	}
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(init.Result, &ir); err != nil || ir.ProtocolVersion != protocol {
		t.Fatalf("initialize negotiated %q, want %q (%v)", ir.ProtocolVersion, protocol, err)
	}
	if msgs, err := p.exchange(t, encodeMessage(t, 0, "notifications/initialized", nil), ""); err != nil || len(msgs) > 0 {
		t.Fatalf("notifications/initialized: %v %v", err, msgs)
	}

	for _, c := range sweepCases(protocol) {
		name := c.method
		if c.params != nil {
			b, _ := json.Marshal(c.params)
			name += " " + string(b)
		}
		if c.notification {
			msgs, err := p.exchange(t, encodeMessage(t, 0, c.method, c.params), "")
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			for _, m := range msgs {
				if m.isResponse() {
					t.Errorf("%s: a notification was answered: %s %s", name, m.Result, m.Error)
				}
			}
		} else {
			m, err := request(c.method, c.params)
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if problem := c.check(m); problem != "" {
				t.Errorf("%s: %s: result %s error %s", name, problem, m.Result, m.Error)
			}
		}
		alive(name)
	}
}

// TestProtocolSweep sends every method of the specification to the binary
// over stdio and over streamable HTTP.
func TestProtocolSweep(t *testing.T) {
	t.Parallel() // its own server binary and client processes; the emulator only read
	for _, protocol := range sweepProtocols {
		t.Run("stdio/"+protocol, func(t *testing.T) {
			start := time.Now()
			p := startStdioPeer(t)
			sweep(t, p, protocol)
			p.closeAndWait(t)
			t.Logf("stdio sweep took %v", time.Since(start).Round(time.Millisecond))
		})
		t.Run("http/"+protocol, func(t *testing.T) {
			start := time.Now()
			sweep(t, &httpPeer{url: "http://" + startHTTPBinary(t) + "/mcp", protocol: protocol}, protocol)
			t.Logf("http sweep took %v", time.Since(start).Round(time.Millisecond))
		})
	}
}

// stdioPeer talks newline-delimited JSON-RPC to the binary's stdin/stdout.
type stdioPeer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	msgs   chan rpcMessage // closed when stdout ends
	exited chan error
}

func startStdioPeer(t *testing.T) *stdioPeer {
	t.Helper()
	cmd := exec.Command(serverBin, "stdio", "--endpoint", emu.URL, "--project", emulator.Project)
	cmd.Stderr = &logBuffer{t: t}
	stdin, stdout := startPiped(t, cmd)
	p := &stdioPeer{cmd: cmd, stdin: stdin, msgs: make(chan rpcMessage, 64), exited: make(chan error, 1)}
	go func() {
		defer close(p.msgs)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			var m rpcMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = rpcMessage{JSONRPC: "not JSON: " + sc.Text()}
			}
			p.msgs <- m
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-p.exited })
	go func() { p.exited <- cmd.Wait() }()
	return p
}

func (p *stdioPeer) exchange(t *testing.T, msg []byte, wantID string) ([]rpcMessage, error) {
	if _, err := p.stdin.Write(append(msg, '\n')); err != nil {
		return nil, fmt.Errorf("writing to the server: %w", err)
	}
	if wantID == "" {
		return nil, nil // a notification: the next ping shows what came back
	}
	var got []rpcMessage
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				return got, fmt.Errorf("the server closed stdout")
			}
			got = append(got, m)
			if m.isResponse() && string(m.ID) == wantID {
				return got, nil
			}
		case <-timeout:
			return got, fmt.Errorf("no answer within 30s")
		}
	}
}

// closeAndWait ends the session as a host does, by closing stdin: the
// server must exit 0.
func (p *stdioPeer) closeAndWait(t *testing.T) {
	p.stdin.Close()
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		if err != nil {
			t.Errorf("after stdin closed the server exited with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the server did not exit within 10s of stdin closing")
	}
}

// httpPeer posts each message to the streamable HTTP endpoint.
type httpPeer struct {
	url      string
	protocol string
	session  string
}

func (p *httpPeer) exchange(t *testing.T, msg []byte, wantID string) ([]rpcMessage, error) {
	req, err := http.NewRequest(http.MethodPost, p.url, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
		req.Header.Set("MCP-Protocol-Version", p.protocol)
	}
	client := http.Client{Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		p.session = s
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	ct := resp.Header.Get("Content-Type")
	if wantID == "" {
		// A notification is accepted (202) or refused with an HTTP error;
		// either way it is never answered with a JSON-RPC response.
		if resp.StatusCode != http.StatusAccepted && resp.StatusCode < 400 {
			return nil, fmt.Errorf("notification: HTTP %d, want 202 Accepted or an HTTP error", resp.StatusCode)
		}
		msgs, _ := decodeHTTPMessages(ct, body)
		return msgs, nil
	}
	// A request is answered with a JSON-RPC response in JSON or SSE.
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d %s: %q, want 200 with a JSON-RPC response", resp.StatusCode, ct, body)
	}
	return decodeHTTPMessages(ct, body)
}

// decodeHTTPMessages reads a JSON body or the data of each SSE event.
func decodeHTTPMessages(contentType string, body []byte) ([]rpcMessage, error) {
	var payloads [][]byte
	switch {
	case strings.HasPrefix(contentType, "application/json"):
		payloads = append(payloads, body)
	case strings.HasPrefix(contentType, "text/event-stream"):
		var data []byte
		for _, line := range strings.Split(string(body)+"\n", "\n") {
			line = strings.TrimSuffix(line, "\r")
			if after, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(after, " ")...)
				data = append(data, '\n')
			} else if line == "" && len(data) > 0 {
				payloads = append(payloads, data)
				data = nil
			}
		}
	case len(body) == 0:
		return nil, nil
	default:
		return nil, fmt.Errorf("content type %q: %q", contentType, body)
	}
	var out []rpcMessage
	for _, p := range payloads {
		if len(bytes.TrimSpace(p)) == 0 {
			continue // an SSE priming event
		}
		var m rpcMessage
		if err := json.Unmarshal(p, &m); err != nil {
			return out, fmt.Errorf("not a JSON-RPC message: %q", p)
		}
		out = append(out, m)
	}
	return out, nil
}
