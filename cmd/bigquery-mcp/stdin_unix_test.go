//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestStdinPipeIsPolled: a pipe becomes a file the poller waits on (it
// takes a read deadline, which a blocking descriptor refuses), reads as
// before, and is blocking again after restore; a regular file is left as
// it is.
func TestStdinPipeIsPolled(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	w := os.NewFile(uintptr(p[1]), "w")
	defer w.Close()
	r, restore, ok := pollable(p[0], "r")
	if !ok {
		t.Fatal("a pipe was not made pollable")
	}
	defer r.Close()
	if err := r.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatalf("the pipe is not polled: %v", err)
	}
	if _, err := w.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "line\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	restore()
	if nonblocking(t, p[0]) {
		t.Error("the pipe is still non-blocking after restore")
	}

	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, ok := pollable(int(f.Fd()), "file"); ok {
		t.Error("a regular file was made pollable")
	}
	if nonblocking(t, int(f.Fd())) {
		t.Error("a regular file was made non-blocking")
	}
}

func nonblocking(t *testing.T, fd int) bool {
	t.Helper()
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	return flags&syscall.O_NONBLOCK != 0
}
