package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// floorDir is the floor program's package, in this module (bench/floor).
const floorDir = "./bench/floor"

// buildFloor builds the floor program with the server's build flags.
func (b *bench) buildFloor(dir string) (string, error) {
	bin := filepath.Join(dir, "floor")
	if err := goBuild(".", bin, floorDir, b.o.buildFlags, true); err != nil {
		return "", fmt.Errorf("building the floor: %w", err)
	}
	return bin, nil
}

// goBuild builds pkg in dir into out, as `make build` does: no cgo, the
// given flags, stripped of symbols and DWARF if strip.
func goBuild(dir, out, pkg, flags string, strip bool) error {
	args := append([]string{"build"}, strings.Fields(flags)...)
	if strip {
		args = append(args, "-ldflags", "-s -w")
	}
	args = append(args, "-o", out, pkg)
	build := exec.Command("go", args...)
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return nil
}

// lighter starts the server and the floor (bench/floor: the design card's
// packages and one tool) alternately, each over stdio against the same
// emulator, and compares exec to the first tools/list answer and the
// process's peak RSS (VmHWM) read right after that answer: the medians
// and their ratios. Then the size of the two stripped binaries. Issue 30's
// targets: both ratios at most 1.3x, the server's binary at most 40 MB.
// With -baseline, a third binary (another build of the server) takes part
// in the same rounds: a change's effect measured side by side.
func (b *bench) lighter(ctx context.Context, _ *serverProc) error {
	fmt.Printf("both built as `make build` builds: CGO_ENABLED=0 go build %s -ldflags \"-s -w\"\n", b.o.buildFlags)
	if b.o.perf != "" {
		fmt.Println("(-perf: the server is not stripped, so its size below is not the released one)")
	}
	type side struct {
		name        string
		bin         string
		initialized sample
		listed      sample
		peak, rss   []int64
		size        int64
	}
	sides := []*side{{name: "server", bin: b.bin}, {name: "floor", bin: b.floor}}
	if b.o.baseline != "" {
		sides = append(sides, &side{name: "baseline", bin: b.o.baseline})
	}
	for _, s := range sides {
		st, err := os.Stat(s.bin)
		if err != nil {
			return err
		}
		s.size = st.Size()
		// One start each first: page cache, the emulator's first
		// connection.
		if _, err := b.timeStart(ctx, s.bin); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	for i := range b.o.floorStarts {
		for j := range sides {
			// Rotate who goes first, so no side always follows the
			// same other side's exit.
			s := sides[(i+j)%len(sides)]
			st, err := b.timeStart(ctx, s.bin)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			s.initialized = append(s.initialized, st.initialized)
			s.listed = append(s.listed, st.listed)
			s.peak, s.rss = append(s.peak, st.peak), append(s.rss, st.rss)
		}
	}
	floor := sides[1]
	fmt.Printf("%d starts each, interleaved; medians (min-max), ratio to the floor's median\n", b.o.floorStarts)
	for _, m := range []struct {
		name string
		of   func(*side) sample
	}{
		{"start to initialize answer", func(s *side) sample { return s.initialized }},
		{"start to first tools/list", func(s *side) sample { return s.listed }},
	} {
		for _, s := range sides {
			d := m.of(s)
			fmt.Printf("%-28s %-8s %9s (%s-%s)  %s\n", m.name, s.name, ms(d.quantile(.5)), ms(d.quantile(0)), ms(d.quantile(1)),
				ratio(d.quantile(.5), m.of(floor).quantile(.5)))
		}
	}
	for _, m := range []struct {
		name string
		of   func(*side) []int64
	}{
		{"peak RSS at start (VmHWM)", func(s *side) []int64 { return s.peak }},
		{"RSS after tools/list", func(s *side) []int64 { return s.rss }},
	} {
		for _, s := range sides {
			v := m.of(s)
			fmt.Printf("%-28s %-8s %9s (%s-%s)  %.2fx\n", m.name, s.name, mb(median(v)), mb(slices.Min(v)), mb(slices.Max(v)),
				float64(median(v))/float64(median(m.of(floor))))
		}
	}
	for _, s := range sides {
		fmt.Printf("%-28s %-8s %s (%d bytes)  %.2fx\n", "stripped binary", s.name, decimalMB(s.size), s.size, float64(s.size)/float64(floor.size))
	}
	fmt.Printf("targets (issue 30): start and peak RSS ratios at most 1.30x, server binary at most 40.00 MB\n")
	return nil
}

// started is one timed start: exec to the initialize answer and to the
// tools/list answer, and the process's memory right after.
type started struct {
	initialized, listed time.Duration
	rss, peak           int64
}

// timeStart starts bin over stdio, lists its tools and stops it.
func (b *bench) timeStart(ctx context.Context, bin string) (started, error) {
	var st started
	start := time.Now()
	p, err := b.startBinary(ctx, bin)
	if err != nil {
		return st, err
	}
	defer p.close()
	st.initialized = time.Since(start)
	if _, err := p.session.ListTools(ctx, nil); err != nil {
		return st, fmt.Errorf("tools/list: %w", err)
	}
	st.listed = time.Since(start)
	st.rss, st.peak, err = memory(p.pid())
	return st, err
}

func median(v []int64) int64 {
	c := slices.Clone(v)
	slices.Sort(c)
	return c[len(c)/2]
}

// decimalMB is bytes in MB of 10^6 bytes, the unit of the size target.
func decimalMB(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }
