package sqltext

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestReaderResetIsNew holds reader.reset to every field of a reader: a
// reader reused for the next statement is a new one but for the room its
// slices grew (and its lists' chunks, emptied).
func TestReaderResetIsNew(t *testing.T) {
	const sql = "WITH c AS (SELECT 1) SELECT * FROM d.t AS x, x.arr, c, EXTERNAL_QUERY('us.c', 'q') JOIN (SELECT CASE WHEN " +
		"a THEN ML.F(1) END FROM `p.d`.u) ON true WHERE y IN (SELECT 1 FROM a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) " +
		"AND EXTRACT(DAY FROM z) > 0 AND OBJ.MAKE_REF(u, 'us.c') IS NOT NULL; EXPORT DATA OPTIONS(uri='gs://b/*') AS SELECT `\\q`"
	var steps int
	s, toks, _ := lex(sql, &steps)
	var a arena
	for _, sp := range split(s, toks, nil, &steps, false) {
		r := a.reader(s, sp.of(toks))
		r.read()
		r.objects()
		r.reset(s, toks[:1], &a)
		want := &reader{src: s, toks: toks[:1], arena: &a, frames: []frame{{}}}
		got, new := reflect.ValueOf(r).Elem(), reflect.ValueOf(want).Elem()
		for i := range got.NumField() {
			name := got.Type().Field(i).Name
			g, w := got.Field(i), new.Field(i)
			switch {
			case name == "objs":
				if o := r.objs; o.used != 0 || o.n != 0 {
					t.Errorf("reset leaves %d records in objs", o.n)
				}
			case g.Kind() == reflect.Slice && name != "frames" && name != "toks":
				if g.Len() != 0 {
					t.Errorf("reset leaves %s with %d elements", name, g.Len())
				}
			case !reflect.DeepEqual(field(g), field(w)):
				t.Errorf("reset leaves %s = %#v, want %#v", name, field(g), field(w))
			}
		}
	}
}

// field returns the value of a field of an addressable struct, exported or
// not.
func field(v reflect.Value) any {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Interface()
}
