package query

import (
	"cmp"
	"context"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
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

// jobRef validates a job ID and the agent's location (jobAccess.location
// fills in a missing one). Both become parts of request URLs, so they are
// checked against BigQuery's rules before any request is built.
func (s *Service) jobRef(jobID, location string) (id, loc string, err error) {
	id = strings.TrimSpace(jobID)
	if err := bqtype.ValidateJobID(id); err != nil {
		return "", "", err
	}
	loc = strings.TrimSpace(location)
	if err := bqtype.ValidateLocation(loc); err != nil {
		return "", "", err
	}
	return id, loc, nil
}

// GetJob reports a job's state and statistics. A job seen finished here is
// settled in the budget (settle.go).
func (s *Service) GetJob(ctx context.Context, in JobInput) (*JobOutput, error) {
	id, loc, err := s.jobRef(in.JobID, in.Location)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	defer cancel()
	j, err := s.lookUpOwned(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	s.settleSeen(ctx, j.acc, j.status)
	return s.jobOutput(j.acc, j.job, j.status, j.loc), nil
}

// ownedJob is a job of the caller's as jobs.get found it.
type ownedJob struct {
	acc    jobAccess
	job    *bigquery.Job
	status *bigquery.JobStatus
	loc    string
}

// lookUpOwned refuses, before any request, a job the caller may not see
// (owner.go), and finds the caller's own job in BigQuery.
func (s *Service) lookUpOwned(ctx context.Context, id, loc string) (*ownedJob, error) {
	acc, err := s.checkOwner(ctx, id)
	if err != nil {
		return nil, err
	}
	job, status, loc, err := s.findJob(ctx, id, acc.location(s, id, loc))
	if err != nil {
		return nil, err
	}
	return &ownedJob{acc: acc, job: job, status: status, loc: loc}, nil
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
	j, err := s.lookUpOwned(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	acc, job, loc := j.acc, j.job, j.loc
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
	s.settleSeen(ctx, acc, status)
	return s.jobOutput(acc, job, status, loc), nil
}

// settleSeen settles the cost of a job of the caller's that jobs.get shows
// finished. Settling is once per job, so a job already settled costs
// nothing more.
func (s *Service) settleSeen(ctx context.Context, acc jobAccess, st *bigquery.JobStatus) {
	if !acc.recorded || st == nil || st.State != bigquery.Done || st.Statistics == nil {
		return
	}
	js := jobStatus{state: "DONE", bytesProcessed: st.Statistics.TotalBytesProcessed, started: st.Statistics.StartTime, ended: st.Statistics.EndTime}
	if qs, ok := st.Statistics.Details.(*bigquery.QueryStatistics); ok {
		js.bytesBilled, js.cacheHit, js.statement = qs.TotalBytesBilled, qs.CacheHit, qs.StatementType
		js.slotMs, js.haveSlotMs = qs.SlotMillis, true
	}
	s.settleJob(ctx, jobHandle{id: acc.rec.ID, location: acc.rec.Location}, acc.rec.Reservation, recMeta(acc.rec), js)
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
// the location wins when it gives one). The error text of a job that read
// through an authorized view is withheld (owner.go).
func (s *Service) jobOutput(acc jobAccess, job *bigquery.Job, st *bigquery.JobStatus, loc string) *JobOutput {
	out := &JobOutput{JobID: job.ID(), Location: cmp.Or(job.Location(), loc), State: stateName(st.State)}
	if err := st.Err(); err != nil {
		out.Error = s.withheld(acc, bqerr.From(err))
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
			out.CostUSD, out.Price = s.jobCost(out.Location, out.BytesBilled, out.SlotMs, out.SlotMs > 0 || out.CacheHit)
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
