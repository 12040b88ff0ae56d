package schema

import (
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

func TestParseTableRef(t *testing.T) {
	tests := []struct {
		in   string
		want TableRef
	}{
		{"ds.t", TableRef{Dataset: "ds", Table: "t"}},
		{"p.ds.t", TableRef{Project: "p", Dataset: "ds", Table: "t"}},
		{"my-proj.ds.t", TableRef{Project: "my-proj", Dataset: "ds", Table: "t"}},
		{"`my-proj.ds.t`", TableRef{Project: "my-proj", Dataset: "ds", Table: "t"}},
		{"`my-proj`.`ds`.`t`", TableRef{Project: "my-proj", Dataset: "ds", Table: "t"}},
		{"  ds.t  ", TableRef{Dataset: "ds", Table: "t"}},
		{"p:ds.t", TableRef{Project: "p", Dataset: "ds", Table: "t"}},
		{"example.com:proj.ds.t", TableRef{Project: "example.com:proj", Dataset: "ds", Table: "t"}},
		{"ds.events_2024*", TableRef{Dataset: "ds", Table: "events_2024*"}},
	}
	for _, tt := range tests {
		got, err := ParseTableRef(tt.in)
		if err != nil {
			t.Errorf("ParseTableRef(%q) error: %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseTableRef(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseTableRefRejects(t *testing.T) {
	for _, in := range []string{"", "   ", "t", "``", "ds.", ".t", "p..t", "p.d-s.t", "p.ds;drop.t"} {
		_, err := ParseTableRef(in)
		e, ok := bqerr.As(err)
		if !ok || e.Code != bqerr.InvalidArgument || e.Hint == "" {
			t.Errorf("ParseTableRef(%q) = %v, want INVALID_ARGUMENT with a hint", in, err)
		}
	}
}
