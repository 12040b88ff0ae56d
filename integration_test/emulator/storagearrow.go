package emulator

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/bigquery/storage/apiv1/storagepb"
	"cloud.google.com/go/civil"
	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/decimal256"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// bqArrow serves read sessions in BigQuery's own Arrow types, with the
// rows the emulator returns through tabledata.list, for
// StorageOptions.BigQueryArrow. The emulator's own Arrow encoder (v0.6.6)
// cannot carry every type: a DATETIME column fails the stream
// (strconv.ParseInt of "2024-02-29T12:34:56"), a REPEATED column panics
// in its record builder (one list entry per element: "field has 2000
// rows, want 1000") and takes the process down, and NUMERIC and BIGNUMERIC
// go out as float64. BigQuery sends (Storage Read API, Arrow):
// INT64 int64, FLOAT64 float64, BOOL bool, STRING utf8, BYTES binary,
// DATE date32, DATETIME timestamp[us] without a time zone, TIME
// time64[us], TIMESTAMP timestamp[us, UTC], NUMERIC decimal128(38, 9),
// BIGNUMERIC decimal256(76, 38), GEOGRAPHY (WKT) and JSON utf8, STRUCT
// struct, REPEATED list. INTERVAL goes out as its canonical text (utf8),
// as the emulator sends it; the client library reads that.
//
// The emulator's result tables (v0.6.6) hold two types in their JSON
// text, which its tabledata.list returns as it is (jobs.query does not):
// BYTES as the base64 of their base64, JSON as a JSON string of the JSON
// text. The front undoes that, so its values are the query's. A FLOAT64
// NaN is NULL in the emulator everywhere (jobs.query too).
type bqArrow struct {
	client *bigquery.Client

	mu       sync.Mutex
	sessions int
	streams  map[string]*bqStream
}

type bqStream struct {
	table  *bigquery.Table
	schema bigquery.Schema
	arrow  *arrow.Schema
}

func newBQArrow(restURL string) (*bqArrow, error) {
	c, err := bigquery.NewClient(context.Background(), Project, option.WithEndpoint(restURL), option.WithoutAuthentication())
	if err != nil {
		return nil, err
	}
	return &bqArrow{client: c, streams: map[string]*bqStream{}}, nil
}

func (b *bqArrow) Close() { b.client.Close() }

// createReadSession makes a session of one stream over req's table.
func (b *bqArrow) createReadSession(ctx context.Context, req *storagepb.CreateReadSessionRequest) (*storagepb.ReadSession, error) {
	// projects/P/datasets/D/tables/T
	parts := strings.Split(req.GetReadSession().GetTable(), "/")
	if len(parts) != 6 || parts[0] != "projects" || parts[2] != "datasets" || parts[4] != "tables" {
		return nil, status.Errorf(codes.InvalidArgument, "bad table %q", req.GetReadSession().GetTable())
	}
	if req.GetReadSession().GetDataFormat() != storagepb.DataFormat_ARROW {
		return nil, status.Error(codes.Unimplemented, "this front serves Arrow only")
	}
	table := b.client.DatasetInProject(parts[1], parts[3]).Table(parts[5])
	md, err := table.Metadata(ctx)
	if err != nil {
		return nil, status.Errorf(codes.NotFound, "table: %v", err)
	}
	as, err := arrowSchema(md.Schema)
	if err != nil {
		return nil, status.Error(codes.Unimplemented, err.Error())
	}
	var buf bytes.Buffer
	rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
	empty := rb.NewRecord()
	rb.Release()
	err = ipc.NewWriter(&buf, ipc.WithSchema(as)).Write(empty)
	empty.Release()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "schema: %v", err)
	}
	b.mu.Lock()
	b.sessions++
	name := fmt.Sprintf("%s/locations/us/sessions/front%d", req.GetParent(), b.sessions)
	b.streams[name+"/streams/0"] = &bqStream{table: table, schema: md.Schema, arrow: as}
	b.mu.Unlock()
	return &storagepb.ReadSession{
		Name:              name,
		DataFormat:        storagepb.DataFormat_ARROW,
		Schema:            &storagepb.ReadSession_ArrowSchema{ArrowSchema: &storagepb.ArrowSchema{SerializedSchema: schemaMessage(buf.Bytes())}},
		Table:             req.GetReadSession().GetTable(),
		Streams:           []*storagepb.ReadStream{{Name: name + "/streams/0"}},
		EstimatedRowCount: int64(md.NumRows),
	}, nil
}

// readRows sends the stream's rows from offset in batches of size rows.
func (b *bqArrow) readRows(ctx context.Context, req *storagepb.ReadRowsRequest, size int, send func(*storagepb.ReadRowsResponse) error) error {
	b.mu.Lock()
	st := b.streams[req.GetReadStream()]
	b.mu.Unlock()
	if st == nil {
		return status.Errorf(codes.NotFound, "no stream %q", req.GetReadStream())
	}
	if size <= 0 {
		size = 10000
	}
	it := st.table.Read(ctx)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, st.arrow)
	defer rb.Release()
	var n, pending int64
	flush := func() error {
		if pending == 0 {
			return nil
		}
		rec := rb.NewRecord()
		defer rec.Release()
		var buf bytes.Buffer
		if err := ipc.NewWriter(&buf, ipc.WithSchema(st.arrow)).Write(rec); err != nil {
			return status.Errorf(codes.FailedPrecondition, "encoding: %v", err)
		}
		rows := pending
		pending = 0
		return send(&storagepb.ReadRowsResponse{
			RowCount: rows,
			Rows: &storagepb.ReadRowsResponse_ArrowRecordBatch{ArrowRecordBatch: &storagepb.ArrowRecordBatch{
				SerializedRecordBatch: withoutSchema(buf.Bytes()), RowCount: rows}},
		})
	}
	for {
		var row []bigquery.Value
		err := it.Next(&row)
		if errors.Is(err, iterator.Done) {
			return flush()
		}
		if err != nil {
			if ctx.Err() != nil {
				return status.FromContextError(ctx.Err()).Err()
			}
			return status.Errorf(codes.FailedPrecondition, "reading the table: %v", err)
		}
		n++
		if n <= req.GetOffset() {
			continue
		}
		for i, f := range st.schema {
			if err := appendSafely(rb.Field(i), f, row[i]); err != nil {
				return status.Errorf(codes.FailedPrecondition, "row %d column %s: %v", n, f.Name, err)
			}
		}
		if pending++; pending == int64(size) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// arrowSchema is a table's schema in BigQuery's Arrow types.
func arrowSchema(schema bigquery.Schema) (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(schema))
	for i, f := range schema {
		af, err := arrowField(f, true)
		if err != nil {
			return nil, err
		}
		fields[i] = af
	}
	return arrow.NewSchema(fields, nil), nil
}

func arrowField(f *bigquery.FieldSchema, withMode bool) (arrow.Field, error) {
	if withMode && f.Repeated {
		elem, err := arrowField(f, false)
		if err != nil {
			return arrow.Field{}, err
		}
		elem.Name, elem.Nullable = "item", false
		return arrow.Field{Name: f.Name, Type: arrow.ListOfField(elem), Nullable: false}, nil
	}
	out := arrow.Field{Name: f.Name, Nullable: !f.Required}
	ext := func(name string) {
		out.Metadata = arrow.NewMetadata([]string{"ARROW:extension:name"}, []string{"google:sqlType:" + name})
	}
	switch f.Type {
	case bigquery.IntegerFieldType:
		out.Type = arrow.PrimitiveTypes.Int64
	case bigquery.FloatFieldType:
		out.Type = arrow.PrimitiveTypes.Float64
	case bigquery.BooleanFieldType:
		out.Type = arrow.FixedWidthTypes.Boolean
	case bigquery.StringFieldType:
		out.Type = arrow.BinaryTypes.String
	case bigquery.BytesFieldType:
		out.Type = arrow.BinaryTypes.Binary
	case bigquery.DateFieldType:
		out.Type = arrow.FixedWidthTypes.Date32
	case bigquery.DateTimeFieldType:
		out.Type = &arrow.TimestampType{Unit: arrow.Microsecond}
		ext("datetime")
	case bigquery.TimeFieldType:
		out.Type = arrow.FixedWidthTypes.Time64us
	case bigquery.TimestampFieldType:
		out.Type = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case bigquery.NumericFieldType:
		out.Type = &arrow.Decimal128Type{Precision: 38, Scale: 9}
	case bigquery.BigNumericFieldType:
		out.Type = &arrow.Decimal256Type{Precision: 76, Scale: 38}
	case bigquery.GeographyFieldType:
		out.Type = arrow.BinaryTypes.String
		ext("geography")
	case bigquery.JSONFieldType:
		out.Type = arrow.BinaryTypes.String
		ext("json")
	case bigquery.IntervalFieldType:
		out.Type = arrow.BinaryTypes.String
	case bigquery.RecordFieldType:
		var fs []arrow.Field
		for _, sub := range f.Schema {
			af, err := arrowField(sub, true)
			if err != nil {
				return arrow.Field{}, err
			}
			fs = append(fs, af)
		}
		out.Type = arrow.StructOf(fs...)
	default:
		return arrow.Field{}, fmt.Errorf("type %s has no Arrow form in this front", f.Type)
	}
	return out, nil
}

var (
	scale9  = new(big.Int).Exp(big.NewInt(10), big.NewInt(9), nil)
	scale38 = new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil)
)

// scaled is r times scale, which must be a whole number.
func scaled(r *big.Rat, scale *big.Int) (*big.Int, error) {
	num := new(big.Int).Mul(r.Num(), scale)
	q, m := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		return nil, fmt.Errorf("%s has more decimals than its type", r.RatString())
	}
	return q, nil
}

// appendSafely is appendValue with a value of an unexpected Go type (a
// failed assertion) made an error, not a crash of the test binary.
func appendSafely(b array.Builder, f *bigquery.FieldSchema, v bigquery.Value) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return appendValue(b, f, v, true)
}

// appendValue appends one value of f, as the client library's
// tabledata.list reader decodes it, to b.
func appendValue(b array.Builder, f *bigquery.FieldSchema, v bigquery.Value, withMode bool) error {
	if withMode && f.Repeated {
		lb := b.(*array.ListBuilder)
		lb.Append(true) // BigQuery has no NULL array: an empty one
		vs, _ := v.([]bigquery.Value)
		for _, e := range vs {
			if err := appendValue(lb.ValueBuilder(), f, e, false); err != nil {
				return err
			}
		}
		return nil
	}
	if v == nil {
		b.AppendNull()
		return nil
	}
	var err error
	switch b := b.(type) {
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.StringBuilder:
		switch s := v.(type) {
		case string:
			if f.Type == bigquery.JSONFieldType {
				var text string
				if json.Unmarshal([]byte(s), &text) == nil {
					s = text
				}
			}
			b.Append(s)
		case *bigquery.IntervalValue:
			b.Append(s.String())
		default:
			err = fmt.Errorf("%T for a string column", v)
		}
	case *array.BinaryBuilder:
		var raw []byte
		if raw, err = base64.StdEncoding.DecodeString(string(v.([]byte))); err == nil {
			b.Append(raw)
		}
	case *array.Date32Builder:
		b.Append(arrow.Date32FromTime(v.(civil.Date).In(time.UTC)))
	case *array.TimestampBuilder:
		switch t := v.(type) {
		case time.Time:
			b.Append(arrow.Timestamp(t.UnixMicro()))
		case civil.DateTime:
			b.Append(arrow.Timestamp(t.In(time.UTC).UnixMicro()))
		default:
			err = fmt.Errorf("%T for a timestamp column", v)
		}
	case *array.Time64Builder:
		t := v.(civil.Time)
		b.Append(arrow.Time64(((int64(t.Hour)*60+int64(t.Minute))*60+int64(t.Second))*1e6 + int64(t.Nanosecond)/1000))
	case *array.Decimal128Builder:
		var n *big.Int
		if n, err = scaled(v.(*big.Rat), scale9); err == nil {
			b.Append(decimal128.FromBigInt(n))
		}
	case *array.Decimal256Builder:
		var n *big.Int
		if n, err = scaled(v.(*big.Rat), scale38); err == nil {
			b.Append(decimal256.FromBigInt(n))
		}
	case *array.StructBuilder:
		vs := v.([]bigquery.Value)
		b.Append(true)
		for i, sub := range f.Schema {
			if err := appendValue(b.FieldBuilder(i), sub, vs[i], true); err != nil {
				return err
			}
		}
	default:
		err = fmt.Errorf("no builder for %T", b)
	}
	return err
}
