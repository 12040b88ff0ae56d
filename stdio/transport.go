// Package stdio is the MCP stdio transport, hardened so that no input line
// can end the session.
//
// go-sdk's IOTransport stops reading, and the server exits, at the first
// line it cannot decode: invalid JSON, a JSON value that is not a JSON-RPC
// message, a line over its size limit. Transport puts a filter in front of
// it: every line is checked (bounded size, bounded nesting, the JSON-RPC 2.0
// envelope) and a bad line is answered with a JSON-RPC error (-32700 or
// -32600, with the request's id when it can be read from the line's start,
// else id null) while the SDK only ever sees messages, never lines: the
// check builds each message from the members it read, as the SDK's
// decoder would (the SDK's IOTransport would decode each line three
// times, with a 32 KB buffer each), and writes the SDK's replies with the
// envelope around their result (encode).
// Replies and the SDK's own output share one serialized writer, so output
// lines never interleave.
package stdio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for Transport's limits.
const (
	// DefaultMaxLineBytes matches the SDK's default request-body limit for
	// streamable HTTP, so both transports accept the same messages.
	DefaultMaxLineBytes = 4 << 20
	// DefaultMaxDepth stays well under the 1000 levels at which the SDK's
	// decoder gives up, and far above what any MCP message needs.
	DefaultMaxDepth = 256
)

// Transport is an [mcp.Transport] over a reader and a writer (stdin and
// stdout in the binary) that answers malformed lines itself.
type Transport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxLineBytes bounds one line; longer lines are discarded unread and
	// answered with -32600. Zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// MaxDepth bounds the nesting of arrays and objects. Zero means
	// DefaultMaxDepth.
	MaxDepth int
	// Logger, if set, records each rejected line: its size and the error
	// code, never its content (it may hold SQL or secrets).
	Logger *slog.Logger
}

// Connect starts the filter and returns the connection the SDK reads the
// filtered messages from and writes its own to, one line each, as its
// IOTransport does for a single (non-batch) message.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c := &conn{out: &lockedWriter{w: t.Writer}, incoming: make(chan jsonrpc.Message), closed: make(chan struct{})}
	f := &filter{
		in:       t.Reader,
		pass:     c.deliver,
		out:      c.out,
		maxLine:  orDefault(t.MaxLineBytes, DefaultMaxLineBytes),
		maxDepth: orDefault(t.MaxDepth, DefaultMaxDepth),
		log:      t.Logger,
	}
	go func() { c.end(f.run()) }()
	return c, nil
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// filter hands the messages of valid lines from in to pass and answers the
// other lines on out.
type filter struct {
	in       io.Reader
	pass     func(jsonrpc.Message) error
	out      io.Writer
	maxLine  int
	maxDepth int
	log      *slog.Logger
}

// run filters until in ends (nil at EOF, so the session ends cleanly) or the
// SDK closes its side (pass fails), and returns why it stopped.
func (f *filter) run() error {
	r := bufio.NewReaderSize(f.in, 64<<10)
	var buf []byte
	for {
		line, tooLong, err := readLine(r, f.maxLine, buf[:0])
		buf = line
		if len(line) > 0 || tooLong {
			if werr := f.handle(line, tooLong); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
	}
}

// handle passes one line on or answers it.
func (f *filter) handle(line []byte, tooLong bool) error {
	var (
		msg jsonrpc.Message
		rej *rejection
	)
	if tooLong {
		rej = &rejection{code: jsonrpc.CodeInvalidRequest, msg: fmt.Sprintf("Invalid Request: line longer than %d bytes", f.maxLine), id: leadingRequestID(trimSpace(line))}
	} else {
		line = trimSpace(line)
		if len(line) == 0 {
			return nil // blank lines carry nothing; the SDK skips them too
		}
		msg, rej = check(line, f.maxDepth)
	}
	if rej == nil {
		return f.pass(msg)
	}
	if f.log != nil {
		f.log.Warn("stdio: rejected an input line", "code", rej.code, "bytes", len(line), "too_long", tooLong)
	}
	_, err := f.out.Write(rej.encode())
	return err
}

// readLine reads up to and without the next '\n' into buf. A line longer than
// max is consumed but only its first idScanBytes are kept, for its id:
// tooLong is set and line is that head, so memory stays bounded whatever
// the input.
func readLine(r *bufio.Reader, max int, buf []byte) (line []byte, tooLong bool, err error) {
	head := min(idScanBytes, max)
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > max+1 { // +1: the newline is not content
				tooLong = true
				if keep := head - len(buf); keep > 0 {
					buf = append(buf, chunk[:min(keep, len(chunk))]...)
				}
				buf = buf[:min(len(buf), head)]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if n := len(buf); n > 0 && buf[n-1] == '\n' {
			buf = buf[:n-1]
		}
		if !tooLong && len(buf) > max {
			tooLong, buf = true, buf[:head]
		}
		return buf, tooLong, err
	}
}

// lockedWriter serializes writes so that the SDK's messages and the filter's
// replies, each written with one Write call, never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// conn is the SDK's side of the transport: Read returns the messages the
// filter passed, Write writes one message a line through the writer the
// filter's replies share.
type conn struct {
	out      *lockedWriter
	incoming chan jsonrpc.Message
	// err is why the filter stopped (io.EOF when stdin ended), set before
	// incoming is closed.
	err       error
	closed    chan struct{}
	closeOnce sync.Once
}

// deliver hands m to Read; it fails once the SDK closed the connection,
// which stops the filter.
func (c *conn) deliver(m jsonrpc.Message) error {
	select {
	case c.incoming <- m:
		return nil
	case <-c.closed:
		return io.ErrClosedPipe
	}
}

// end records why the filter stopped and lets Read return it.
func (c *conn) end(err error) {
	if err == nil {
		err = io.EOF
	}
	c.err = err
	close(c.incoming)
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m, ok := <-c.incoming:
		if !ok {
			return nil, c.err
		}
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *conn) Write(ctx context.Context, m jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	data, err := encode(m)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	_, err = c.out.Write(data)
	return err
}

// Close stops Read; the process's stdout stays open. The filter stops at
// its next line (a read of stdin cannot be interrupted).
func (c *conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *conn) SessionID() string { return "" }
