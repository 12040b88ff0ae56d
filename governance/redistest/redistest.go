// Package redistest runs a real redis-server for tests of the shared
// governance state: its own process on a free loopback port, with no
// persistence, stopped when the test ends.
//
// Without the redis-server binary a test is skipped, unless
// BQMCP_REQUIRE_CLIENTS is set (CI, where .ci/run installs it): then the
// missing binary fails the test, so the Redis tests never pass by not
// running.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Server is one redis-server process.
type Server struct {
	t    testing.TB
	bin  string
	port int
	cmd  *exec.Cmd
}

// Start runs redis-server on a free port and waits until it answers.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("BQMCP_REQUIRE_CLIENTS") != "" {
			t.Fatalf("BQMCP_REQUIRE_CLIENTS is set but redis-server is not installed (apt-get install -y redis-server): %v", err)
		}
		t.Skip("redis-server is not installed (apt-get install -y redis-server)")
	}
	s := &Server{t: t, bin: bin, port: freePort(t)}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the redis:// URL of the server.
func (s *Server) URL() string { return "redis://" + s.Addr() }

func (s *Server) start() {
	s.t.Helper()
	// --save '' and no AOF: nothing is written to disk, and a restart
	// starts empty unless the test wants otherwise.
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no")
	s.cmd.Dir = s.t.TempDir()
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("starting redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ping(s.Addr()) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("redis-server on %s did not answer within 10s", s.Addr())
}

// Stop kills the server (as an outage would: no shutdown).
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGCONT) // a paused process cannot die otherwise
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// Pause stops the process where it is (SIGSTOP): connections are
// accepted by the kernel and never answered, as with a hung or
// unreachable Redis; Resume lets it go on, its data intact.
func (s *Server) Pause() { s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server.
func (s *Server) Resume() { s.cmd.Process.Signal(syscall.SIGCONT) }

// Restart starts the server again on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// ping sends PING and waits for +PONG.
func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprint(c, "PING\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
