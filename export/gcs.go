package export

// Cloud Storage exports. BigQuery writes the files itself, with an extract
// job of the query's result table, under the bucket and prefix the
// operator named (--export-gcs); the agent picks only a relative name below
// that prefix, checked here before anything runs. Nothing passes through
// this server but the job's answer.

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// GCSLocation is a parsed --export-gcs: a bucket and a prefix (no slash
// at either end; empty for the bucket's top).
type GCSLocation struct {
	Bucket, Prefix string
}

// URI is the location as gs://bucket/prefix/.
func (l GCSLocation) URI() string {
	if l.Prefix == "" {
		return "gs://" + l.Bucket + "/"
	}
	return "gs://" + l.Bucket + "/" + l.Prefix + "/"
}

// bucketName is Cloud Storage's rule for bucket names: lower-case letters,
// digits, dashes, underscores and dots, starting and ending with a letter
// or digit, 3 to 222 characters. Compiled at first use: at package init
// its {1,220} cost every start 150 KB and 700 allocations.
var bucketName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$`) })

// ParseGCS reads --export-gcs (gs://bucket or gs://bucket/prefix). The
// prefix may not hold a wildcard, an empty, "." or ".." segment or a
// control character: it is the fixed part of every object name.
func ParseGCS(s string) (GCSLocation, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "gs://")
	if !ok {
		return GCSLocation{}, fmt.Errorf("export-gcs %q must be gs://bucket or gs://bucket/prefix", s)
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if !bucketName().MatchString(bucket) {
		return GCSLocation{}, fmt.Errorf("export-gcs %q: %q is not a Cloud Storage bucket name", s, bucket)
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix != "" {
		for _, seg := range strings.Split(prefix, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "*?[]#") ||
				strings.ContainsFunc(seg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				return GCSLocation{}, fmt.Errorf("export-gcs %q: the prefix may not hold empty, \".\" or \"..\" segments, wildcards or control characters", s)
			}
		}
	}
	return GCSLocation{Bucket: bucket, Prefix: prefix}, nil
}

// gcsTarget is a checked Cloud Storage destination.
type gcsTarget struct {
	name   string // relative to the operator's prefix; empty: the job ID
	format string
}

// gcsName is one segment of an agent's name: no leading dot (so neither
// "." nor ".."), only letters, digits, '.', '_' and '-'.
var gcsName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`) })

// maxGCSName bounds an agent's name, well inside Cloud Storage's 1,024
// bytes for a whole object name.
const maxGCSName = 200

// gcsTarget checks a Cloud Storage destination before anything runs: the
// operator named a bucket (--export-gcs), and the agent's name stays
// below its prefix (segments of [A-Za-z0-9._-], '/' between them, none
// empty or starting with a dot).
func (s *Service) gcsTarget(in Input) (*gcsTarget, error) {
	if s.cfg.GCS == "" || s.cfg.Extractor == nil {
		return nil, bqerr.Invalid("this server exports to no Cloud Storage bucket",
			"Export to a file or a table instead, or ask the user to start the server with --export-gcs gs://bucket/prefix.")
	}
	if _, err := ParseGCS(s.cfg.GCS); err != nil {
		return nil, bqerr.New(bqerr.Internal, "the server's --export-gcs is invalid").WithCause(err).WithRetryable(false).
			WithHint("Ask the user to fix --export-gcs.")
	}
	format, err := parseFormat(in.Format)
	if err != nil {
		return nil, err
	}
	t := &gcsTarget{name: strings.TrimSpace(in.Name), format: format}
	if t.name == "" {
		return t, nil
	}
	bad := len(t.name) > maxGCSName
	for _, seg := range strings.Split(t.name, "/") {
		bad = bad || !gcsName().MatchString(seg)
	}
	if bad {
		return nil, bqerr.Invalid(fmt.Sprintf("name %q is not a relative object name", t.name),
			"Give a name such as orders_2024 or campaign/orders: letters, digits, '.', '_' and '-', folders separated by '/', no leading '/' or dot, no '..'; it lives under the server's --export-gcs prefix.")
	}
	return t, nil
}

// ExtractSpec is how a result table is extracted to Cloud Storage.
type ExtractSpec struct {
	// JobID is chosen before the first attempt, so a retry finds the same
	// extract job instead of starting another.
	JobID    string
	Location string
	Labels   map[string]string
	// URI is the destination with one '*', which BigQuery replaces with
	// each file's shard number (000000000000, 000000000001, ...).
	URI    string
	Format bigquery.DataFormat
	// MaxBytes bounds the result table's size, checked before the job.
	MaxBytes int64
}

// Extracted is what an extract job wrote.
type Extracted struct {
	// Rows and Bytes are the result table's (the files' sizes differ by
	// format).
	Rows, Bytes int64
	Schema      bigquery.Schema
	// Files is the job's statistics.extract.destinationUriFileCounts for
	// the URI; 0 when the job did not say.
	Files int64
}

// TableExtractor extracts a table to Cloud Storage and waits for it.
type TableExtractor interface {
	Extract(ctx context.Context, src *bigquery.Table, spec ExtractSpec) (*Extracted, error)
}

// maxListedObjects bounds the objects an answer names; objectCount says
// how many there are.
const maxListedObjects = 100

// gcsFormats are BigQuery's destinationFormat and a file extension for
// each format.
var gcsFormats = map[string]struct {
	format bigquery.DataFormat
	ext    string
}{
	formatJSONL:   {bigquery.JSON, "jsonl"},
	formatCSV:     {bigquery.CSV, "csv"},
	formatParquet: {bigquery.Parquet, "parquet"},
}

// toGCS extracts the result table to gs://bucket/prefix/<name>/part-*.<ext>
// and names the objects BigQuery wrote. The extract job's ID is chosen
// here, once, and is fresh for every export (a jobId exported twice starts
// two extract jobs, each found again by its own retries).
func (s *Service) toGCS(ctx context.Context, t *gcsTarget, res *query.ResultTable) (*Output, error) {
	loc, _ := ParseGCS(s.cfg.GCS) // checked by gcsTarget
	if t.name == "" {
		t.name = res.JobID
	}
	f := gcsFormats[t.format]
	folder := loc.URI() + t.name + "/"
	spec := ExtractSpec{JobID: res.JobID + "_extract_" + randomSuffix(), Location: res.Location, Labels: governance.JobLabels(ctx),
		URI: folder + "part-*." + f.ext, Format: f.format, MaxBytes: s.cfg.MaxExportBytes}
	var got *Extracted
	err := s.cfg.Executor.Do(ctx, resilience.Export, s.cfg.Project, func(ctx context.Context) error {
		var err error
		got, err = s.cfg.Extractor.Extract(ctx, res.Table, spec)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &Output{URI: folder, Format: t.format, Rows: got.Rows, Bytes: got.Bytes, Columns: columns(got.Schema), ObjectCount: got.Files}
	for i := int64(0); i < got.Files && i < maxListedObjects; i++ {
		out.Objects = append(out.Objects, strings.Replace(spec.URI, "*", fmt.Sprintf("%012d", i), 1))
	}
	return out, nil
}

// ClientExtractor extracts with a client library client.
type ClientExtractor struct {
	Client *bigquery.Client
}

// Extract reads the source's size and schema (tables.get), refuses it
// above spec.MaxBytes, then runs an extract job (jobs.insert with
// configuration.extract) under spec.JobID and waits for it (job.Run), and
// returns its file count.
func (c ClientExtractor) Extract(ctx context.Context, src *bigquery.Table, spec ExtractSpec) (*Extracted, error) {
	s := c.Client.DatasetInProject(src.ProjectID, src.DatasetID).Table(src.TableID)
	md, err := s.Metadata(ctx)
	if err != nil {
		return nil, err
	}
	got := &Extracted{Rows: int64(md.NumRows), Bytes: md.NumBytes, Schema: md.Schema}
	if spec.MaxBytes > 0 && md.NumBytes > spec.MaxBytes {
		return nil, bqerr.Newf(bqerr.ResourceExhausted, "the result is %d bytes, more than this server exports at once (--max-export-bytes %d)", md.NumBytes, spec.MaxBytes).
			WithRetryable(false).WithHint("Export fewer rows or columns (a WHERE, fewer columns, or a LIMIT), or several exports of parts of the result.")
	}
	dst := bigquery.NewGCSReference(spec.URI)
	dst.DestinationFormat = spec.Format
	ex := s.ExtractorTo(dst)
	ex.JobID, ex.Location, ex.Labels = spec.JobID, spec.Location, spec.Labels
	status, err := job.Run(ctx, c.Client, job.Ref{ID: spec.JobID, Location: spec.Location}, ex.Run)
	if err != nil {
		return nil, err
	}
	if status.Statistics == nil {
		return got, nil
	}
	if st, ok := status.Statistics.Details.(*bigquery.ExtractStatistics); ok && len(st.DestinationURIFileCounts) > 0 {
		got.Files = st.DestinationURIFileCounts[0]
	}
	return got, nil
}
