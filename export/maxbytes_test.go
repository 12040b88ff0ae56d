package export

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// capQueries records what RunToTable was asked, and refuses as package
// query does an estimate over the export's cap.
type capQueries struct{ got []query.ExecuteInput }

func (q *capQueries) RunToTable(_ context.Context, in query.ExecuteInput) (*query.ResultTable, error) {
	q.got = append(q.got, in)
	return nil, bqerr.New(bqerr.ResourceExhausted, "the query would read about 2.0 GiB, more than this server allows one export")
}

func (q *capQueries) ResultOf(context.Context, string, string) (*query.ResultTable, error) {
	return nil, bqerr.New(bqerr.NotFound, "no such job")
}

// TestExportPassesItsCapToTheQuery: an export of sql hands
// --max-export-bytes (or its default) to package query, which checks it
// against the dry run's estimate before any job; its refusal reaches the
// agent, and no file is written.
func TestExportPassesItsCapToTheQuery(t *testing.T) {
	for _, c := range []struct{ set, want int64 }{{1 << 30, 1 << 30}, {0, DefaultMaxBytes}} {
		q := &capQueries{}
		dir := filepath.Join(t.TempDir(), "exports")
		s := NewService(Config{Queries: q, Project: "p", Dir: dir, MaxBytes: c.set})
		_, err := s.Export(context.Background(), Input{SQL: "SELECT * FROM sales.orders"})
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted {
			t.Errorf("MaxBytes %d: %v, want the query's refusal", c.set, err)
		}
		if len(q.got) != 1 || q.got[0].MaxExportBytes != c.want {
			t.Errorf("MaxBytes %d: RunToTable got %+v, want MaxExportBytes %d", c.set, q.got, c.want)
		}
		if names := dirEntries(t, dir); len(names) != 0 {
			t.Errorf("MaxBytes %d: files %v after a refusal", c.set, names)
		}
	}
}
