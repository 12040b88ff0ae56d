//go:build unix

package main

import (
	"os"
	"syscall"
)

// pollableStdin is stdin as a file Go's network poller waits on, when it is
// a pipe or a socket (how hosts start a stdio server), and restore puts the
// descriptor back in blocking mode.
//
// Go reads a blocking stdin in a system call that holds a thread: while the
// server waits for the host's next line, that thread sits in read(2), the
// scheduler takes its processor back, and every line that arrives has the
// thread leave the system call and find a processor again before the
// message can be handed on. A pollable stdin parks the reading goroutine
// instead, and the poller wakes it when a line is there, as it does for the
// server's connections to BigQuery (make bench: 3-30% less server CPU per
// warm execute_sql, docs/performance.md). A terminal is left alone: it is
// shared with the shell, which must not find it non-blocking after the
// server exits.
func pollableStdin() (stdin *os.File, restore func()) {
	if f, restore, ok := pollable(syscall.Stdin, "/dev/stdin"); ok {
		return f, restore
	}
	return os.Stdin, func() {}
}

// pollable makes fd non-blocking and wraps it in a pollable file, if it is
// a pipe or a socket.
func pollable(fd int, name string) (f *os.File, restore func(), ok bool) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil, false
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return nil, nil, false
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil, nil, false
	}
	// os.NewFile sees the descriptor non-blocking and registers it with
	// the poller.
	return os.NewFile(uintptr(fd), name), func() { syscall.SetNonblock(fd, false) }, true
}
