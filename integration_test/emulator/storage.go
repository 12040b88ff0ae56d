package emulator

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/bigquery/storage/apiv1/storagepb"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/goccy/bigquery-emulator/server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// StorageOptions are a Storage Read front's knobs, for tests that need
// BigQuery's batching or a fault (StartStorageFront). The zero value is
// StorageAddr's front: batches as the emulator sends them, no faults.
type StorageOptions struct {
	// BatchRows > 0 cuts the emulator's one record batch per stream into
	// batches of at most this many rows, as BigQuery sends a stream in
	// many batches.
	BatchRows int
	// FailAfterBatches > 0 ends the first ReadRows call that has sent
	// that many batches with codes.Unavailable (a transient error the
	// client library resumes from at its offset), once per front.
	FailAfterBatches int
	// FailAlways makes that fault end every ReadRows call that gets
	// there (with FailAfterBatches 0, before its first batch), not only
	// the first: a stream that never recovers.
	FailAlways bool
	// BatchDelay is waited before each batch is sent (a slow read).
	BatchDelay time.Duration
	// BigQueryArrow serves sessions in BigQuery's own Arrow types (see
	// bqArrow), from the rows the emulator returns through tabledata.list,
	// instead of the emulator's Arrow encoder, which cannot carry DATETIME,
	// REPEATED fields or exact NUMERIC. Batches are BatchRows rows (10,000
	// when 0).
	BigQueryArrow bool
}

// StorageFront is a running Storage Read front with its own knobs and
// what it saw.
type StorageFront struct {
	// Addr is its plaintext gRPC host:port (pass it as --storage-endpoint).
	Addr  string
	front *storageFront
	stop  func()
}

// StartStorageFront starts a Storage Read front of its own, with opts, in
// front of the same emulator as StorageAddr's. Close it when done.
func (e *Emulator) StartStorageFront(opts StorageOptions) (*StorageFront, error) {
	return serveStorage(e.test, e.URL, opts)
}

// Close stops the front.
func (f *StorageFront) Close() { f.stop() }

// Faults is how many injected faults ended a ReadRows call.
func (f *StorageFront) Faults() int { return int(f.front.faults.Load()) }

// Batches is how many record batches the front has sent.
func (f *StorageFront) Batches() int { return int(f.front.batches.Load()) }

// Sessions is how many read sessions were created.
func (f *StorageFront) Sessions() int { return int(f.front.sessions.Load()) }

// Cancelled is how many ReadRows calls ended because their caller went
// away (its context was cancelled) before the stream's end.
func (f *StorageFront) Cancelled() int { return int(f.front.cancelled.Load()) }

// ReadOffsets are the offsets of every ReadRows request, in order: a
// resumed stream asks again from the rows it already has.
func (f *StorageFront) ReadOffsets() []int64 {
	f.front.mu.Lock()
	defer f.front.mu.Unlock()
	return append([]int64(nil), f.front.offsets...)
}

// storageFront puts in front of the emulator's Storage Read API what
// v0.6.6 lacks and BigQuery and the client library rely on:
//
//   - a read session without ReadOptions (the client library sends none
//     when it reads a whole table) crashes the emulator with a nil pointer:
//     the front sends empty options, which BigQuery reads as "every column";
//   - the emulator serves exactly one stream and refuses a request for
//     more, and answers a request for "as many as you like" (0, what the
//     client library sends) with none, so no rows: the front asks for one;
//   - the emulator's session schema and each of its Arrow batches are
//     whole IPC streams (schema, batch, end marker); BigQuery sends the
//     schema message and the batch message alone, and the client library
//     reads the session's schema followed by a batch, so it stops at the
//     schema's end marker and decodes no rows: the front keeps only the
//     schema message of the one and cuts it off the other;
//   - the emulator ends a stream with an empty record batch, on which the
//     client library's row iterator (v1.85.0) indexes an empty slice and
//     panics: the front drops batches of no rows;
//   - the emulator ignores ReadRowsRequest.Offset and sends a stream
//     from its first row every time, where BigQuery starts at the offset
//     (the client library asks again from its offset after a transient
//     error): the front drops the rows before the offset.
//
// Everything else goes through untouched, unless opts ask for BigQuery's
// smaller batches, a fault or a delay.
type storageFront struct {
	storagepb.UnimplementedBigQueryReadServer
	backend storagepb.BigQueryReadClient
	opts    StorageOptions
	// bq, when set, serves sessions itself (StorageOptions.BigQueryArrow).
	bq *bqArrow

	sessions, batches, faults, cancelled atomic.Int64
	fired                                atomic.Bool
	mu                                   sync.Mutex
	offsets                              []int64
}

func (f *storageFront) CreateReadSession(ctx context.Context, req *storagepb.CreateReadSessionRequest) (*storagepb.ReadSession, error) {
	req = proto.Clone(req).(*storagepb.CreateReadSessionRequest)
	if req.ReadSession != nil && req.ReadSession.ReadOptions == nil {
		req.ReadSession.ReadOptions = &storagepb.ReadSession_TableReadOptions{}
	}
	req.MaxStreamCount, req.PreferredMinStreamCount = 1, 0
	f.sessions.Add(1)
	if f.bq != nil {
		return f.bq.createReadSession(ctx, req)
	}
	sess, err := f.backend.CreateReadSession(ctx, req)
	if err != nil {
		return nil, err
	}
	if as := sess.GetArrowSchema(); as != nil {
		as.SerializedSchema = schemaMessage(as.SerializedSchema)
	}
	return sess, nil
}

func (f *storageFront) ReadRows(req *storagepb.ReadRowsRequest, stream storagepb.BigQueryRead_ReadRowsServer) error {
	f.mu.Lock()
	f.offsets = append(f.offsets, req.Offset)
	f.mu.Unlock()
	ctx := stream.Context()
	sent := 0
	send := func(resp *storagepb.ReadRowsResponse) error {
		if (f.opts.FailAfterBatches > 0 || f.opts.FailAlways) && sent == f.opts.FailAfterBatches && (f.opts.FailAlways || f.fired.CompareAndSwap(false, true)) {
			f.faults.Add(1)
			return status.Error(codes.Unavailable, "injected fault: the stream broke")
		}
		if f.opts.BatchDelay > 0 {
			select {
			case <-ctx.Done():
				f.cancelled.Add(1)
				return status.FromContextError(ctx.Err()).Err()
			case <-time.After(f.opts.BatchDelay):
			}
		}
		if err := stream.Send(resp); err != nil {
			if ctx.Err() != nil {
				f.cancelled.Add(1)
			}
			return err
		}
		sent++
		f.batches.Add(1)
		return nil
	}
	if f.bq != nil {
		return f.bq.readRows(ctx, req, f.opts.BatchRows, send)
	}
	rows, err := f.backend.ReadRows(ctx, req)
	if err != nil {
		return err
	}
	skip := req.Offset
	for {
		resp, err := rows.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				f.cancelled.Add(1)
			}
			return err
		}
		if resp.GetRowCount() == 0 {
			continue
		}
		batch := resp.GetArrowRecordBatch()
		if batch == nil || (f.opts.BatchRows <= 0 && skip == 0) {
			if batch != nil {
				batch.SerializedRecordBatch = withoutSchema(batch.SerializedRecordBatch)
			}
			if err := send(resp); err != nil {
				return err
			}
			continue
		}
		parts, err := rebatch(batch.SerializedRecordBatch, skip, f.opts.BatchRows)
		if err != nil {
			return status.Errorf(codes.FailedPrecondition, "storage front: %v", err)
		}
		skip = max(0, skip-resp.RowCount)
		for _, p := range parts {
			out := proto.Clone(resp).(*storagepb.ReadRowsResponse)
			out.RowCount = p.rows
			out.GetArrowRecordBatch().RowCount = p.rows
			out.GetArrowRecordBatch().SerializedRecordBatch = p.data
			if err := send(out); err != nil {
				return err
			}
		}
	}
}

// part is one record batch message of a rebatched stream.
type part struct {
	data []byte
	rows int64
}

// rebatch decodes an Arrow IPC stream (schema, batches), drops its first
// skip rows and cuts the rest into record batch messages of at most size
// rows each (all of them in one when size <= 0), each alone: no schema, no
// end-of-stream marker.
func rebatch(stream []byte, skip int64, size int) ([]part, error) {
	r, err := ipc.NewReader(bytes.NewReader(stream))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var parts []part
	for r.Next() {
		rec := r.Record()
		n := rec.NumRows()
		start := min(skip, n)
		skip -= start
		step := int64(size)
		if step <= 0 {
			step = max(n-start, 1)
		}
		for lo := start; lo < n; lo += step {
			hi := min(lo+step, n)
			slice := rec.NewSlice(lo, hi)
			// The writer writes the schema, then the batch; not closed, it
			// adds no end-of-stream marker, which BigQuery's batches do not
			// carry (a reader of the concatenated stream would stop there).
			var buf bytes.Buffer
			err := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema())).Write(slice)
			slice.Release()
			if err != nil {
				return nil, fmt.Errorf("encoding rows %d-%d: %w", lo, hi, err)
			}
			parts = append(parts, part{data: withoutSchema(buf.Bytes()), rows: hi - lo})
		}
	}
	return parts, r.Err()
}

func (f *storageFront) SplitReadStream(ctx context.Context, req *storagepb.SplitReadStreamRequest) (*storagepb.SplitReadStreamResponse, error) {
	return f.backend.SplitReadStream(ctx, req)
}

// serveStorage serves storageFront on a TCP port of the loopback
// interface, passing calls to the test server's in-memory listener. Close
// ends both.
func serveStorage(ts *server.TestServer, restURL string, opts StorageOptions) (*StorageFront, error) {
	var bq *bqArrow
	if opts.BigQueryArrow {
		var err error
		if bq, err = newBQArrow(restURL); err != nil {
			return nil, err
		}
	}
	// The emulator sends a stream's rows in one message: take it whole.
	conn, err := grpc.NewClient("passthrough:///emulator", ts.DialerOption, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		conn.Close()
		return nil, err
	}
	stop := func() {
		conn.Close()
		if bq != nil {
			bq.Close()
		}
	}
	srv := grpc.NewServer()
	front := &storageFront{backend: storagepb.NewBigQueryReadClient(conn), opts: opts, bq: bq}
	storagepb.RegisterBigQueryReadServer(srv, front)
	go srv.Serve(l)
	return &StorageFront{Addr: l.Addr().String(), front: front, stop: func() { srv.Stop(); stop() }}, nil
}

// schemaLength is the length of the first message (the schema) of an
// Arrow IPC stream: an encapsulated message is a 0xFFFFFFFF continuation
// marker, its metadata's length (int32, little-endian) and the metadata,
// and a schema has no body. 0 when b does not start with a message.
func schemaLength(b []byte) int {
	if len(b) < 8 || binary.LittleEndian.Uint32(b) != 0xFFFFFFFF {
		return 0
	}
	if n := 8 + int(binary.LittleEndian.Uint32(b[4:8])); n <= len(b) {
		return n
	}
	return 0
}

// schemaMessage keeps the schema message of an Arrow IPC stream.
func schemaMessage(b []byte) []byte {
	if n := schemaLength(b); n > 0 {
		return b[:n]
	}
	return b
}

// withoutSchema cuts the schema message off an Arrow IPC stream.
func withoutSchema(b []byte) []byte { return b[schemaLength(b):] }
