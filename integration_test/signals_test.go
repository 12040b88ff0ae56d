package integration_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
)

// A signal while a query runs: the built binary cancels the tool call, the
// job gets jobs.cancel, and the process exits 0 promptly (Cloud Run allows
// 10 s after SIGTERM; stdio hosts send SIGTERM or SIGINT on exit).
func TestSignalCancelsRunningQueryAndExitsPromptly(t *testing.T) {
	for _, tc := range []struct {
		name string
		http bool
		sig  os.Signal
	}{
		{"stdio SIGTERM", false, syscall.SIGTERM},
		{"stdio SIGINT", false, syscall.SIGINT},
		{"http SIGTERM", true, syscall.SIGTERM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t)
			p.HoldQueries(func(sql string) bool { return strings.Contains(sql, "/* hold */") })
			cmd, cs := startBinary(t, p, tc.http)
			called := make(chan *mcp.CallToolResult, 1)
			go func() {
				res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": "SELECT 3 AS n /* hold */"}})
				called <- res
			}()
			id := heldJob(t, p)
			d := signalAndWait(t, cmd, tc.sig)
			if d > 5*time.Second {
				t.Errorf("exited %s after the signal", d)
			}
			t.Logf("exited %s after %v", d.Round(time.Millisecond), tc.sig)
			if !p.Cancelled(id) {
				t.Errorf("job %s got no jobs.cancel; requests: %+v", id, p.Requests())
			}
			select {
			case <-called: // an error result, or the connection closing
			case <-time.After(5 * time.Second):
				t.Error("the client's call never returned")
			}
		})
	}
}

// startBinary runs the built server against the proxy and connects a client.
func startBinary(t *testing.T, p *faults.Proxy, http bool) (*exec.Cmd, *mcp.ClientSession) {
	t.Helper()
	if http {
		addr := freeAddr(t)
		cmd := exec.Command(serverBin, "http", "--addr", addr, "--endpoint", p.URL, "--project", emulator.Project)
		cmd.Stderr = &logBuffer{t: t}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		waitListening(t, addr)
		return cmd, clientSession(t, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, "2025-06-18")
	}
	// The host keeps stdin open: the signal alone must end the process.
	return startStdio(t, "--endpoint", p.URL, "--project", emulator.Project)
}

// signalAndWait sends sig to the server and waits for it to exit with
// status 0, at most 10 s (then it is killed and the test fails); it
// returns how long the exit took.
func signalAndWait(t *testing.T, cmd *exec.Cmd, sig os.Signal) time.Duration {
	t.Helper()
	begin := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v, want status 0", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatal("still running 10 s after the signal")
	}
	return time.Since(begin)
}
