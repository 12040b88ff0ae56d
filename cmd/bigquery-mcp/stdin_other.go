//go:build !unix

package main

import "os"

// pollableStdin is stdin as it is: the poller is for Unix descriptors (see
// stdin_unix.go).
func pollableStdin() (stdin *os.File, restore func()) { return os.Stdin, func() {} }
