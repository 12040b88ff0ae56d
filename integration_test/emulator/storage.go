package emulator

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"

	"cloud.google.com/go/bigquery/storage/apiv1/storagepb"
	"github.com/goccy/bigquery-emulator/server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
)

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
//     panics: the front drops batches of no rows.
//
// Everything else goes through untouched.
type storageFront struct {
	storagepb.UnimplementedBigQueryReadServer
	backend storagepb.BigQueryReadClient
}

func (f *storageFront) CreateReadSession(ctx context.Context, req *storagepb.CreateReadSessionRequest) (*storagepb.ReadSession, error) {
	req = proto.Clone(req).(*storagepb.CreateReadSessionRequest)
	if req.ReadSession != nil && req.ReadSession.ReadOptions == nil {
		req.ReadSession.ReadOptions = &storagepb.ReadSession_TableReadOptions{}
	}
	req.MaxStreamCount, req.PreferredMinStreamCount = 1, 0
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
	rows, err := f.backend.ReadRows(stream.Context(), req)
	if err != nil {
		return err
	}
	for {
		resp, err := rows.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if resp.GetRowCount() == 0 {
			continue
		}
		if batch := resp.GetArrowRecordBatch(); batch != nil {
			batch.SerializedRecordBatch = withoutSchema(batch.SerializedRecordBatch)
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

func (f *storageFront) SplitReadStream(ctx context.Context, req *storagepb.SplitReadStreamRequest) (*storagepb.SplitReadStreamResponse, error) {
	return f.backend.SplitReadStream(ctx, req)
}

// serveStorage serves storageFront on a TCP port of the loopback
// interface, passing calls to the test server's in-memory listener. stop
// ends both.
func serveStorage(ts *server.TestServer) (addr string, stop func(), err error) {
	conn, err := grpc.NewClient("passthrough:///emulator", ts.DialerOption, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		conn.Close()
		return "", nil, err
	}
	srv := grpc.NewServer()
	storagepb.RegisterBigQueryReadServer(srv, &storageFront{backend: storagepb.NewBigQueryReadClient(conn)})
	go srv.Serve(l)
	return l.Addr().String(), func() { srv.Stop(); conn.Close() }, nil
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
