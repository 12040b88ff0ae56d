package bqtype

import (
	"strings"
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

func TestParseTableRefChecksEveryPart(t *testing.T) {
	for _, in := range []string{"../x.ds.t", "p/q.ds.t", "p.ds.t/x", "p.ds.t?x", "p.ds.t#x", "p.ds.a%2Fb", "p.ds.t\x00", "-p.ds.t", "p.ds.t'x"} {
		_, err := ParseTableRef(in)
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.InvalidArgument {
			t.Errorf("ParseTableRef(%q) = %v, want INVALID_ARGUMENT", in, err)
		}
	}
	for _, in := range []string{"ds.t$20240101", "ds.my table", "ds.tàble-1", "ds.événements"} {
		if _, err := ParseTableRef(in); err != nil {
			t.Errorf("ParseTableRef(%q) = %v, want ok", in, err)
		}
	}
}

func TestValidateJobID(t *testing.T) {
	for _, id := range []string{"bqmcp_0f1e-2d3c", "job_ABC123", "x", strings.Repeat("a", 1024)} {
		if err := ValidateJobID(id); err != nil {
			t.Errorf("ValidateJobID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"", "../../datasets/sales", "a/b", "a.b", "a b", "a?b", "a%2Fb", "a\nb", "jöb", strings.Repeat("a", 1025)} {
		err := ValidateJobID(id)
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.InvalidArgument || e.Hint == "" {
			t.Errorf("ValidateJobID(%q) = %v, want INVALID_ARGUMENT with a hint", id, err)
		}
	}
}

func TestValidateLocation(t *testing.T) {
	for _, loc := range []string{"", "US", "EU", "us-central1", "europe-west2", "asia-northeast1"} {
		if err := ValidateLocation(loc); err != nil {
			t.Errorf("ValidateLocation(%q) = %v, want nil", loc, err)
		}
	}
	for _, loc := range []string{"../x", "us central1", "us/central1", "us.central1", "us?x", strings.Repeat("a", 65)} {
		if e, ok := bqerr.As(ValidateLocation(loc)); !ok || e.Code != bqerr.InvalidArgument {
			t.Errorf("ValidateLocation(%q) = %v, want INVALID_ARGUMENT", loc, e)
		}
	}
}

func TestValidateProjectID(t *testing.T) {
	for _, p := range []string{"p", "demo-project", "my-project-123", "example.com:proj", "google.com:x-y"} {
		if err := ValidateProjectID(p); err != nil {
			t.Errorf("ValidateProjectID(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"", ".", "..", "../p", "p/q", "-p", "p q", "p_q?", "p%2F", strings.Repeat("a", 256)} {
		if e, ok := bqerr.As(ValidateProjectID(p)); !ok || e.Code != bqerr.InvalidArgument {
			t.Errorf("ValidateProjectID(%q) = %v, want INVALID_ARGUMENT", p, e)
		}
	}
}
