package query

import (
	"cmp"
	"context"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// JobInput names a job for get_job and cancel_job.
type JobInput struct {
	JobID    string `json:"jobId"`
	Location string `json:"location,omitempty"`
}

// JobOutput describes a job.
type JobOutput struct {
	JobID          string       `json:"jobId"`
	Location       string       `json:"location,omitempty"`
	State          string       `json:"state"`
	StatementType  string       `json:"statementType,omitempty"`
	BytesProcessed int64        `json:"bytesProcessed"`
	BytesBilled    int64        `json:"bytesBilled"`
	CacheHit       bool         `json:"cacheHit"`
	Created        string       `json:"created,omitempty"`
	Started        string       `json:"started,omitempty"`
	Ended          string       `json:"ended,omitempty"`
	Error          *bqerr.Error `json:"error,omitempty"`
}

// jobRef validates a job ID and fills in the location when the agent gave
// none: the server's, or where the job ran if this server started or found
// it (knownLocation). Both become parts of request URLs, so they are checked
// against BigQuery's rules before any request is built.
func (s *Service) jobRef(jobID, location string) (id, loc string, err error) {
	id = strings.TrimSpace(jobID)
	if err := bqtype.ValidateJobID(id); err != nil {
		return "", "", err
	}
	loc = strings.TrimSpace(location)
	if err := bqtype.ValidateLocation(loc); err != nil {
		return "", "", err
	}
	return id, s.knownLocation(id, loc), nil
}

// GetJob reports a job's state and statistics.
func (s *Service) GetJob(ctx context.Context, in JobInput) (*JobOutput, error) {
	id, loc, err := s.jobRef(in.JobID, in.Location)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	defer cancel()
	job, status, loc, err := s.findJob(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	return jobOutput(job, status, loc), nil
}

// CancelJob asks BigQuery to stop a job. Cancellation is best effort: the
// job may finish first.
func (s *Service) CancelJob(ctx context.Context, in JobInput) (*JobOutput, error) {
	id, loc, err := s.jobRef(in.JobID, in.Location)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	defer cancel()
	job, _, loc, err := s.findJob(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	err = s.exec.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		call := s.rest.Jobs.Cancel(s.cfg.Project, id).Context(ctx)
		if loc != "" {
			call = call.Location(loc)
		}
		_, err := call.Do()
		return err
	})
	if err != nil {
		return nil, bqerr.From(err).WithJobID(id)
	}
	status, err := job.Status(ctx)
	if err != nil {
		status = job.LastStatus()
	}
	return jobOutput(job, status, loc), nil
}

func (s *Service) job(ctx context.Context, id, loc string) (*bigquery.Job, *bigquery.JobStatus, error) {
	var job *bigquery.Job
	err := s.exec.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		var err error
		job, err = s.client.JobFromIDLocation(ctx, id, loc)
		return err
	})
	if err != nil {
		return nil, nil, bqerr.From(err).WithJobID(id)
	}
	status := job.LastStatus()
	if status == nil {
		status = &bigquery.JobStatus{}
	}
	return job, status, nil
}

// jobOutput describes job, found in location loc (BigQuery's own word on
// the location wins when it gives one).
func jobOutput(job *bigquery.Job, st *bigquery.JobStatus, loc string) *JobOutput {
	out := &JobOutput{JobID: job.ID(), Location: cmp.Or(job.Location(), loc), State: stateName(st.State)}
	if err := st.Err(); err != nil {
		out.Error = bqerr.From(err)
	}
	if s := st.Statistics; s != nil {
		out.BytesProcessed = s.TotalBytesProcessed
		out.Created = timeString(s.CreationTime)
		out.Started = timeString(s.StartTime)
		out.Ended = timeString(s.EndTime)
		if qs, ok := s.Details.(*bigquery.QueryStatistics); ok {
			out.StatementType, out.BytesBilled, out.CacheHit = qs.StatementType, qs.TotalBytesBilled, qs.CacheHit
		}
	}
	return out
}

func stateName(s bigquery.State) string {
	switch s {
	case bigquery.Pending:
		return "PENDING"
	case bigquery.Running:
		return "RUNNING"
	case bigquery.Done:
		return "DONE"
	}
	return "UNKNOWN"
}

func timeString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
