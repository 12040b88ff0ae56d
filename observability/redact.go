package observability

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
)

// RedactHandler wraps h so that the message and every string in the
// attributes (nested groups, errors, Stringers, and the strings inside
// structs, maps and slices) pass through redact first, so that tokens,
// keys, query strings and private keys never reach the log. A nil redact
// is a programming error and panics here, where the logger is built,
// rather than logging secrets later.
func RedactHandler(h slog.Handler, redact func(string) string) slog.Handler {
	if redact == nil {
		panic("observability: RedactHandler needs a redaction function")
	}
	return &redactHandler{inner: h, r: redacter(redact)}
}

type redactHandler struct {
	inner slog.Handler
	r     redacter
}

// redacter is the redaction function, with the walks over values that
// apply it to every string inside them.
type redacter func(string) string

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	nr := slog.NewRecord(r.Time, r.Level, h.r(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		nr.AddAttrs(h.r.attr(a))
		return true
	})
	return h.inner.Handle(ctx, nr)
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, 0, len(as))
	for _, a := range as {
		out = append(out, h.r.attr(a))
	}
	return &redactHandler{inner: h.inner.WithAttrs(out), r: h.r}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(name), r: h.r}
}

// attr returns a with every string in its value redacted (keys are
// the code's own names). A LogValuer is resolved first; slog recovers a
// LogValue that panics.
func (redact redacter) attr(a slog.Attr) slog.Attr {
	key := a.Key
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(key, redact(v.String()))
	case slog.KindGroup:
		group := v.Group()
		out := make([]slog.Attr, 0, len(group))
		for _, g := range group {
			out = append(out, redact.attr(g))
		}
		return slog.Attr{Key: key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		return slog.Attr{Key: key, Value: redact.anyValue(v.Any())}
	}
	return slog.Attr{Key: key, Value: v}
}

// anyValue redacts a value of unknown type; see [redacter.value].
//
// A method that panics (a nil pointer behind an error interface, say) gives
// a marker instead of taking the logger down.
func (redact redacter) anyValue(x any) (v slog.Value) {
	defer func() {
		if p := recover(); p != nil {
			v = slog.StringValue(fmt.Sprintf("!PANIC(%T): %s", x, redact(fmt.Sprint(p))))
		}
	}()
	return slog.AnyValue(redact.value(x, 0))
}

// maxRedactDepth bounds how deep redacter.value walks maps and slices (a
// cyclic value cannot hang the logger).
const maxRedactDepth = 16

// value returns x as a tree of JSON-ready values (strings, numbers,
// bools, maps, slices) with every string redacted. Errors, Stringers and
// TextMarshalers become their text, wherever they sit: at the top, or as
// an element of a map or slice. Maps and slices are walked; anything else
// (structs) takes a round trip through JSON, which is how the JSON handler
// would write it, so every string inside is redacted without changing the
// shape.
func (redact redacter) value(x any, depth int) any {
	switch t := x.(type) {
	case nil:
		return nil
	case string:
		return redact(t)
	case error:
		return redact(t.Error())
	case fmt.Stringer:
		return redact(t.String())
	case encoding.TextMarshaler:
		b, err := t.MarshalText()
		if err != nil {
			return "!ERROR: " + redact(err.Error())
		}
		return redact(string(b))
	case json.RawMessage:
		return redact.jsonText(t)
	case []byte:
		return redact(string(t))
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr, float32, float64:
		return t
	}
	if depth >= maxRedactDepth {
		return "!DEPTH"
	}
	rv := reflect.ValueOf(x)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		if k := rv.Elem().Kind(); k == reflect.Map || k == reflect.Slice || k == reflect.Array {
			rv = rv.Elem()
		}
	}
	switch rv.Kind() {
	case reflect.Map:
		if rv.IsNil() {
			return nil
		}
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			out[redact(fmt.Sprint(it.Key().Interface()))] = redact.value(it.Value().Interface(), depth+1)
		}
		return out
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = redact.value(rv.Index(i).Interface(), depth+1)
		}
		return out
	}
	b, err := json.Marshal(x)
	if err != nil {
		return redact(fmt.Sprintf("%+v", x))
	}
	return redact.jsonText(b)
}

// jsonText decodes JSON and redacts every string and object key in it;
// text that is not JSON is redacted as text.
func (redact redacter) jsonText(b []byte) any {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return redact(string(b))
	}
	return redact.tree(v)
}

func (redact redacter) tree(v any) any {
	switch t := v.(type) {
	case string:
		return redact(t)
	case []any:
		for i := range t {
			t[i] = redact.tree(t[i])
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[redact(k)] = redact.tree(e)
		}
		return out
	}
	return v
}
