// Package redistest runs a real redis-server for tests of the shared
// governance state: its own process on a free loopback port, with no
// persistence of its own (RestartKeepingData snapshots on demand), stopped
// when the test ends.
//
// Without the redis-server binary a test is skipped, unless
// BQMCP_REQUIRE_CLIENTS is set (CI, where .ci/run installs it): then the
// missing binary fails the test, so the Redis tests never pass by not
// running.
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Server is one redis-server process.
type Server struct {
	t    testing.TB
	bin  string
	port int
	dir  string
	cmd  *exec.Cmd
	// paused is set between Pause and Resume.
	paused atomic.Bool
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
	s := &Server{t: t, bin: bin, port: freePort(t), dir: t.TempDir()}
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
	// --save '' and no AOF: nothing is written to disk by itself, and a
	// restart starts empty unless RestartKeepingData saved a snapshot
	// (dump.rdb in dir, which redis-server loads when it starts).
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no",
		"--dir", s.dir, "--dbfilename", "dump.rdb")
	s.cmd.Dir = s.dir
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
func (s *Server) Pause() {
	s.paused.Store(true)
	s.cmd.Process.Signal(syscall.SIGSTOP)
}

// Resume continues a paused server.
func (s *Server) Resume() {
	s.cmd.Process.Signal(syscall.SIGCONT)
	s.paused.Store(false)
}

// Paused reports whether the server is paused (between Pause and Resume).
func (s *Server) Paused() bool { return s.paused.Load() }

// PausedWait is how long a connection from Dialer waits on a paused server
// before its read or write times out.
const PausedWait = 20 * time.Millisecond

// Dialer dials the server for a Redis client (go-redis's Options.Dialer)
// whose connections time out after PausedWait while the server is paused,
// whatever the client's own timeouts: a test stages an outage without
// waiting out the server's one-second timeouts, and every step outside the
// outage keeps them.
func (s *Server) Dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &pausableConn{Conn: c, srv: s}, nil
	}
}

// pausableConn cuts the deadlines the client sets to PausedWait while the
// server is paused.
type pausableConn struct {
	net.Conn
	srv *Server
}

func (c *pausableConn) cut(t time.Time) time.Time {
	if !c.srv.Paused() {
		return t
	}
	if soon := time.Now().Add(PausedWait); t.IsZero() || t.After(soon) {
		return soon
	}
	return t
}

func (c *pausableConn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.cut(t)) }
func (c *pausableConn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.cut(t)) }
func (c *pausableConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.cut(t)) }

// Restart starts the server again on the same port, empty (as a Redis
// without persistence comes back).
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	os.Remove(filepath.Join(s.dir, "dump.rdb"))
	s.start()
}

// Save snapshots the data now (SAVE): a server stopped later comes back
// with it (StartAgain), and without what was written after it, as a Redis
// restored from an RDB snapshot, or whose replica lagged, does.
func (s *Server) Save() {
	s.t.Helper()
	if err := command(s.Addr(), "SAVE", "+OK\r\n"); err != nil {
		s.t.Fatalf("redis-server SAVE: %v", err)
	}
}

// StopKeepingData snapshots the data and kills the server, as a Redis with
// persistence (AOF with appendfsync always) goes down without losing a
// write; StartAgain brings it back on the same port with that data.
func (s *Server) StopKeepingData() {
	s.t.Helper()
	s.Save()
	s.Stop()
}

// StartAgain starts a stopped server on the same port, with the data of
// the last Save (none: empty).
func (s *Server) StartAgain() {
	s.t.Helper()
	if s.cmd != nil {
		s.t.Fatal("redistest: StartAgain of a running server")
	}
	s.start()
}

// ping sends PING and waits for +PONG.
func ping(addr string) bool { return command(addr, "PING", "+PONG\r\n") == nil }

// command sends one inline command and checks its one-line answer.
func command(addr, cmd, want string) error {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprint(c, cmd+"\r\n"); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != want {
		return fmt.Errorf("%s answered %q", cmd, line)
	}
	return nil
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
