package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sample holds the durations of one side of a comparison.
type sample []time.Duration

func (s sample) quantile(q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	return c[int(q*float64(len(c)-1)+0.5)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func ratio(a, b time.Duration) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2fx", float64(a)/float64(b))
}

// row prints one comparison: median and p90 of both sides and their ratios,
// the server's own time (its latency minus the time its requests spent at
// the proxy) and the CPU the server process used per call. Own time also
// holds the client's side of MCP and both process hops; CPU is the
// server's alone, and moves less with the machine's load.
func row(name string, server, raw, own sample, cpu time.Duration) {
	fmt.Printf("%-34s server p50 %9s p90 %9s | raw p50 %9s p90 %9s | ratio p50 %s p90 %s | server own p50 %s, CPU/call %d µs\n",
		name, ms(server.quantile(.5)), ms(server.quantile(.9)), ms(raw.quantile(.5)), ms(raw.quantile(.9)),
		ratio(server.quantile(.5), raw.quantile(.5)), ratio(server.quantile(.9), raw.quantile(.9)), ms(own.quantile(.5)), cpu.Microseconds())
}

// threadCPU is the CPU time (user and system) the threads of process pid
// have used, summed from their schedstat, which counts in nanoseconds
// (cpuTime reads /proc/PID/stat, which counts in 10 ms ticks but keeps
// the time of ended threads: right for a long export, coarse for a call).
func threadCPU(pid int) (time.Duration, error) {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("reading the CPU time of %d: %v", pid, err)
	}
	var total time.Duration
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread has ended
		}
		field, _, _ := strings.Cut(string(b), " ")
		n, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", f, err)
		}
		total += time.Duration(n)
	}
	return total, nil
}

// memory reads VmRSS and VmHWM (peak) of a process, in kB.
func memory(pid int) (rss, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			rss = n
		case "VmHWM":
			peak = n
		}
	}
	return rss, peak, nil
}

func mb(kb int64) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }
