package export

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// fileTarget is a checked file destination.
type fileTarget struct {
	name      string // one path element inside Dir
	format    string
	overwrite bool
}

// Formats.
const (
	formatJSONL   = "jsonl"
	formatCSV     = "csv"
	formatParquet = "parquet"
)

// fileTarget checks a file destination before anything runs. A name is
// one path element: no folders, no "..", not absolute, so it can only name
// a file directly in Dir; os.Root enforces the same when writing, and a
// symlink already there is refused rather than followed or replaced.
func (s *Service) fileTarget(in Input) (*fileTarget, error) {
	format, err := parseFormat(in.Format)
	if err != nil {
		return nil, err
	}
	t := &fileTarget{name: strings.TrimSpace(in.Name), format: format, overwrite: in.Overwrite}
	if t.name == "" {
		return t, nil // named after the job, once it is known
	}
	if !filepath.IsLocal(t.name) || strings.ContainsAny(t.name, `/\`) || strings.HasPrefix(t.name, ".") {
		return nil, bqerr.Invalid(fmt.Sprintf("name %q is not a plain file name", t.name),
			"Give a file name without folders, '..' or a leading dot; files are written only in the server's export folder (--export-dir).")
	}
	if filepath.Ext(t.name) == "" {
		t.name += "." + format
	}
	// Checked again when writing; checked here so a taken name costs no
	// query.
	if root, err := os.OpenRoot(s.cfg.Dir); err == nil {
		defer root.Close()
		if err := checkExisting(root, t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// parseFormat reads an export's format: jsonl (the default), csv or
// parquet.
func parseFormat(f string) (string, error) {
	format := strings.ToLower(strings.TrimSpace(f))
	switch format {
	case "", "json", "jsonl", "ndjson":
		return formatJSONL, nil
	case formatCSV, formatParquet:
		return format, nil
	}
	return "", bqerr.Invalid("format must be jsonl, csv or parquet", "Leave format out for JSON Lines.")
}

// toFile reads the result table into a temporary file in Dir and, when
// every row is written, moves it to its name: a reader never sees half a
// file, and a failed or cancelled export leaves nothing behind.
func (s *Service) toFile(ctx context.Context, t *fileTarget, res *query.ResultTable) (*Output, error) {
	if t.name == "" {
		t.name = res.JobID + "." + t.format
	}
	if err := os.MkdirAll(s.cfg.Dir, 0o700); err != nil {
		return nil, bqerr.New(bqerr.Internal, "the export folder could not be created").WithCause(err)
	}
	abs, err := filepath.Abs(s.cfg.Dir)
	if err != nil {
		return nil, bqerr.New(bqerr.Internal, "the export folder could not be resolved").WithCause(err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, bqerr.New(bqerr.Internal, "the export folder could not be opened").WithCause(err)
	}
	defer root.Close()
	if err := checkExisting(root, t); err != nil {
		return nil, err
	}
	tmp := "." + t.name + "." + randomSuffix() + ".tmp"
	f, err := root.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, bqerr.New(bqerr.Internal, "the export file could not be created").WithCause(err)
	}
	done := false
	defer func() {
		f.Close()
		if !done {
			root.Remove(tmp)
		}
	}()
	out := &Output{Format: t.format}
	var schema bigquery.Schema
	// An attempt starts the file again, so a retried read writes each
	// row once.
	err = s.cfg.Executor.Do(ctx, resilience.Export, res.Table.ProjectID, func(ctx context.Context) error {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if err := f.Truncate(0); err != nil {
			return err
		}
		w := &counter{w: f, limit: s.cfg.MaxExportBytes}
		var err error
		if t.format == formatParquet {
			schema, out.Rows, out.ReadAPI, err = s.writeParquet(ctx, res.Table, w)
		} else {
			schema, out.Rows, out.ReadAPI, err = s.write(ctx, res.Table, t.format, w)
		}
		out.Bytes = w.n
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, bqerr.New(bqerr.Internal, "the export file could not be written").WithCause(err)
	}
	if err := publish(root, tmp, t); err != nil {
		return nil, err
	}
	done = true
	out.Columns = columns(schema)
	out.URI = (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(abs, t.name))}).String()
	return out, nil
}

// checkExisting refuses a name that is taken, unless overwrite was asked
// for a regular file; a symlink or folder there is refused always.
func checkExisting(root *os.Root, t *fileTarget) error {
	fi, err := root.Lstat(t.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return bqerr.New(bqerr.Internal, "the export folder could not be read").WithCause(err)
	case !fi.Mode().IsRegular():
		return bqerr.Invalid(fmt.Sprintf("%s exists and is not a regular file", t.name), "Choose another name.")
	case !t.overwrite:
		return bqerr.Invalid(fmt.Sprintf("%s already exists", t.name), "Choose another name, or pass overwrite: true to replace it.")
	}
	return nil
}

// publish gives the finished temporary file its name. Without overwrite
// a hard link makes the name only if nobody took it meanwhile.
func publish(root *os.Root, tmp string, t *fileTarget) error {
	if t.overwrite {
		if err := root.Rename(tmp, t.name); err != nil {
			return bqerr.New(bqerr.Internal, "the export file could not be renamed").WithCause(err)
		}
		return nil
	}
	if err := root.Link(tmp, t.name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return bqerr.Invalid(fmt.Sprintf("%s already exists", t.name), "Choose another name, or pass overwrite: true to replace it.")
		}
		return bqerr.New(bqerr.Internal, "the export file could not be named").WithCause(err)
	}
	root.Remove(tmp)
	return nil
}

// write reads table and writes it in format to w.
func (s *Service) write(ctx context.Context, table *bigquery.Table, format string, w io.Writer) (bigquery.Schema, int64, string, error) {
	rs, err := s.cfg.Reader.Read(ctx, table)
	if err != nil {
		return nil, 0, "", err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var enc rowEncoder
	if format == formatCSV {
		enc = newCSVEncoder(bw)
	} else {
		enc = &jsonlEncoder{w: bw}
	}
	var n int64
	report, reported := job.ProgressOf(ctx), time.Now()
	for row, err := range rs.Rows {
		if err != nil {
			return nil, 0, "", err
		}
		if n == 0 {
			if err := enc.header(rs.Schema()); err != nil {
				return nil, 0, "", err
			}
		}
		if err := enc.row(rs.Schema(), row); err != nil {
			return nil, 0, "", err
		}
		n++
		if report != nil && n%progressRows == 0 && time.Since(reported) >= s.progressEvery {
			report(ctx, job.Progress{Rows: n, TotalRows: rs.TotalRows(), Bytes: written(w) + int64(bw.Buffered())})
			reported = time.Now()
		}
	}
	if n == 0 {
		if err := enc.header(rs.Schema()); err != nil {
			return nil, 0, "", err
		}
	}
	if err := enc.flush(); err != nil {
		return nil, 0, "", err
	}
	return rs.Schema(), n, rs.API, bw.Flush()
}

// written is what w has taken so far, when it counts.
func written(w io.Writer) int64 {
	if c, ok := w.(*counter); ok {
		return c.n
	}
	return 0
}

// counter counts the bytes written through it, and refuses to write past
// limit (0: no limit).
type counter struct {
	w     io.Writer
	n     int64
	limit int64
}

func (c *counter) Write(p []byte) (int, error) {
	if c.limit > 0 && c.n+int64(len(p)) > c.limit {
		return 0, bqerr.Newf(bqerr.ResourceExhausted, "the export passed --max-export-bytes (%d bytes); nothing was kept", c.limit).
			WithRetryable(false).
			WithHint("Export fewer rows or columns (a WHERE clause, a LIMIT), or ask the user to raise --max-export-bytes.")
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
