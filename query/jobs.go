package query

import (
	"context"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/job"
)

// JobInput names a job for get_job and cancel_job.
type JobInput struct {
	JobID    string `json:"jobId"`
	Location string `json:"location,omitempty"`
}

// JobOutput describes a job.
type JobOutput struct {
	JobID          string `json:"jobId"`
	Location       string `json:"location,omitempty"`
	State          string `json:"state"`
	StatementType  string `json:"statementType,omitempty"`
	BytesProcessed int64  `json:"bytesProcessed"`
	BytesBilled    int64  `json:"bytesBilled"`
	CacheHit       bool   `json:"cacheHit"`
	// CostUSD, SlotMs and Price are as in ExecuteOutput, once the job is
	// DONE.
	CostUSD *float64     `json:"costUSD,omitempty" jsonschema:"What the job cost at price, once DONE: bytesBilled on demand, slotMs under editions billing."`
	SlotMs  int64        `json:"slotMs,omitempty" jsonschema:"The job's slot-milliseconds (totalSlotMs)."`
	Price   *cost.Price  `json:"price,omitempty" jsonschema:"The price costUSD was computed at: billing, location, perTiBUSD or slotHourUSD, and its source."`
	Created string       `json:"created,omitempty"`
	Started string       `json:"started,omitempty"`
	Ended   string       `json:"ended,omitempty"`
	Error   *bqerr.Error `json:"error,omitempty"`
}

// GetJob reports a job's state and statistics. A job seen finished here is
// settled in the budget (package job).
func (s *Service) GetJob(ctx context.Context, in JobInput) (*JobOutput, error) {
	j, err := s.jobs.Open(ctx, in.JobID, in.Location)
	if err != nil {
		return nil, err
	}
	return s.jobOutput(j), nil
}

// CancelJob asks BigQuery to stop a job. Cancellation is best effort: the
// job may finish first.
func (s *Service) CancelJob(ctx context.Context, in JobInput) (*JobOutput, error) {
	j, err := s.jobs.Cancel(ctx, in.JobID, in.Location)
	if err != nil {
		return nil, err
	}
	return s.jobOutput(j), nil
}

// jobOutput describes j. The error text of a job that read through an
// authorized view is withheld (job.Access.Withheld).
func (s *Service) jobOutput(j *job.Job) *JobOutput {
	st := j.Status
	out := &JobOutput{JobID: j.BQ.ID(), Location: j.Ref.Location, State: stateName(st.State)}
	if err := st.Err(); err != nil {
		out.Error = j.Withheld(bqerr.From(err))
	}
	if js := st.Statistics; js != nil {
		out.BytesProcessed = js.TotalBytesProcessed
		out.Created = timeString(js.CreationTime)
		out.Started = timeString(js.StartTime)
		out.Ended = timeString(js.EndTime)
		out.SlotMs = js.TotalSlotDuration.Milliseconds()
		qs, ok := js.Details.(*bigquery.QueryStatistics)
		if ok {
			out.StatementType, out.BytesBilled, out.CacheHit = qs.StatementType, qs.TotalBytesBilled, qs.CacheHit
			if out.SlotMs == 0 {
				out.SlotMs = qs.SlotMillis
			}
		}
		if st.State == bigquery.Done && ok {
			out.CostUSD, out.Price = s.jobCost(out.Location, out.BytesBilled, out.SlotMs, slotTimeKnown(out.SlotMs, true, out.CacheHit))
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
