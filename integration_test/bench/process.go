package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
)

// serverProc is the built binary, started over stdio against the wire proxy
// as a host such as Claude Code starts it.
type serverProc struct {
	cmd     *exec.Cmd
	session *mcp.ClientSession
}

// start starts the server; extra are flags added to the command line.
func (b *bench) start(ctx context.Context, extra ...string) (*serverProc, error) {
	return b.startBinary(ctx, b.bin, extra...)
}

// startBinary starts bin (the server, or the floor, which takes the same
// first flags) over stdio and returns once the MCP handshake is done.
func (b *bench) startBinary(ctx context.Context, bin string, extra ...string) (*serverProc, error) {
	cmd := exec.Command(bin, append([]string{"stdio", "--endpoint", b.wire.URL, "--project", emulator.Project}, extra...)...)
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), b.o.serverEnv...)
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to the server: %w", err)
	}
	return &serverProc{cmd: cmd, session: cs}, nil
}

func (p *serverProc) pid() int { return p.cmd.Process.Pid }

func (p *serverProc) close() { p.session.Close() }

// call calls a tool and returns its structured result; a tool error is an
// error.
func (p *serverProc) call(ctx context.Context, tool string, args map[string]any) (map[string]any, error) {
	res, err := p.result(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	out := map[string]any{}
	raw, err := json.Marshal(res.StructuredContent)
	if err == nil && res.StructuredContent != nil {
		err = json.Unmarshal(raw, &out)
	} else if len(text) > 0 {
		err = json.Unmarshal([]byte(text[0]), &out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: reading result: %w", tool, err)
	}
	return out, nil
}

// result calls a tool and returns the result as the SDK's client decoded
// it, which is all a host reads; a tool error is an error. The timed calls
// use it, so they count no work of the harness's own (call re-encodes the
// structured content into a map).
func (p *serverProc) result(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	res, err := p.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		var text []string
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text = append(text, t.Text)
			}
		}
		return nil, fmt.Errorf("%s: %s", tool, strings.Join(text, " "))
	}
	return res, nil
}

// p3 times fresh server processes from exec to the first tools/list answer
// and reads their idle memory; the peak is that of the process the other
// measurements used. It splits the time three ways: `--version` (process
// start and package initialisation, no work: the floor any start pays),
// exec to the initialize answer (the same plus the server's set-up and the
// handshake) and exec to the tools/list answer.
func (b *bench) p3(ctx context.Context, main *serverProc) error {
	var version, initialized, listed sample
	var idle int64
	for range b.o.starts {
		start := time.Now()
		if out, err := exec.Command(b.bin, "--version").CombinedOutput(); err != nil {
			return fmt.Errorf("--version: %w: %s", err, out)
		}
		version = append(version, time.Since(start))

		start = time.Now()
		p, err := b.start(ctx)
		if err != nil {
			return err
		}
		initialized = append(initialized, time.Since(start))
		if _, err := p.session.ListTools(ctx, nil); err != nil {
			p.close()
			return fmt.Errorf("tools/list: %w", err)
		}
		listed = append(listed, time.Since(start))
		time.Sleep(500 * time.Millisecond)
		rss, _, err := memory(p.pid())
		p.close()
		if err != nil {
			return err
		}
		idle = max(idle, rss)
	}
	for _, s := range []struct {
		name string
		d    sample
	}{{"--version (start + package init)", version}, {"start to initialize answer", initialized}, {"start to first tools/list", listed}} {
		fmt.Printf("%-34s p50 %s, min %s, max %s over %d starts\n", s.name, ms(s.d.quantile(.5)), ms(s.d.quantile(0)), ms(s.d.quantile(1)), len(s.d))
	}
	fmt.Printf("idle RSS after start: %s (highest of %d)\n", mb(idle), len(listed))
	rss, peak, err := memory(main.pid())
	if err != nil {
		return err
	}
	fmt.Printf("server used for P1/P2 so far: RSS %s, peak RSS (VmHWM) %s\n", mb(rss), mb(peak))
	if st, err := os.Stat(b.bin); err == nil {
		fmt.Printf("binary: %s (%s, stripped unless -perf)\n", decimalMB(st.Size()), b.o.buildFlags)
	}
	return nil
}

// p4 loads a large table and reads all of it with execute_sql at the
// default row cap, in a fresh server process, and reports its peak RSS.
func (b *bench) p4(ctx context.Context, _ *serverProc) error {
	start := time.Now()
	ddl := fmt.Sprintf("CREATE TABLE `demo-project.shop.big` AS SELECT x AS id, CONCAT('row-', CAST(x AS STRING), '-', REPEAT('x', 40)) AS label, x * 1.5 AS amount FROM UNNEST(GENERATE_ARRAY(1, %d)) AS x", b.o.rows)
	if err := b.read(ctx, ddl); err != nil {
		return fmt.Errorf("loading %d rows: %w", b.o.rows, err)
	}
	fmt.Printf("loaded %d rows (id INT64, label STRING ~50 B, amount FLOAT64) with CREATE TABLE AS SELECT in %s\n", b.o.rows, time.Since(start).Round(time.Millisecond))
	p, err := b.start(ctx)
	if err != nil {
		return err
	}
	defer p.close()
	_, before, err := memory(p.pid())
	if err != nil {
		return err
	}
	b.wire.reset()
	start = time.Now()
	out, err := p.call(ctx, "execute_sql", map[string]any{"sql": "SELECT * FROM `demo-project.shop.big`"})
	if err != nil {
		return err
	}
	d := time.Since(start)
	reqs, _ := b.wire.seen()
	rss, peak, err := memory(p.pid())
	if err != nil {
		return err
	}
	rows, _ := out["rows"].([]any)
	fmt.Printf("execute_sql SELECT * of %d rows: %s, %d requests; returned %d rows, truncated=%v, totalRows=%v\n",
		b.o.rows, ms(d), len(reqs), len(rows), out["truncated"], out["totalRows"])
	fmt.Printf("server RSS: peak before the call %s, after %s, peak (VmHWM) %s\n", mb(before), mb(rss), mb(peak))
	if rows == nil {
		return errors.New("execute_sql returned no rows")
	}
	return nil
}
