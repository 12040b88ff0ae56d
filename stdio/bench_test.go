package stdio

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkToolCall is one tools/call round trip through the Transport to
// an in-process go-sdk server and back, over pipes: what the transport and
// the SDK's session cost a call, without the process boundary.
func BenchmarkToolCall(b *testing.B) {
	s := startSession(b, &Transport{})
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"SELECT order_id, status FROM shop.orders"}}}`, i+1))
		if l := s.next(); !strings.Contains(l, `"isError"`) && !strings.Contains(l, "SELECT order_id") {
			b.Fatalf("reply %s", l)
		}
	}
}
