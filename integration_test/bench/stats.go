package main

import (
	"fmt"
	"os"
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
// and the server's own time (its latency minus the time its requests spent
// at the proxy).
func row(name string, server, raw, own sample) {
	fmt.Printf("%-34s server p50 %9s p90 %9s | raw p50 %9s p90 %9s | ratio p50 %s p90 %s | server own p50 %s\n",
		name, ms(server.quantile(.5)), ms(server.quantile(.9)), ms(raw.quantile(.5)), ms(raw.quantile(.9)),
		ratio(server.quantile(.5), raw.quantile(.5)), ratio(server.quantile(.9), raw.quantile(.9)), ms(own.quantile(.5)))
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
