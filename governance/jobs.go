package governance

import (
	"errors"
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// JobRecord is what the server remembers of a job it started: who started
// it, where it runs and what governance decided about its query. The job
// tools answer only the principal who started a job: in token and google
// client-auth modes every caller runs as the server's own credential, so
// BigQuery's IAM cannot tell callers apart and the record is the only thing
// that can.
type JobRecord struct {
	ID string
	// Principal started the job; "" is the one local user of stdio.
	Principal string
	Location  string
	// ThroughView is set when the dataset allowlist let the query through
	// only because it read tables outside the allowlist through an
	// authorized view: its error text may show what the view hides.
	ThroughView bool
	// Reservation holds the job's estimate in the bytes budget until the
	// job's bytes billed settle it.
	Reservation string
	Started     time.Time
	// Tool started the job (its mcp_tool label) and Statement is the kind
	// of statement it runs, for the caller's list of last jobs.
	Tool, Statement string
}

// ErrJobNotRecorded: no record of the job, which this server did not start
// (or started before the process did).
var ErrJobNotRecorded = errors.New("no record of this job")

// ForgottenJobError is a job the server started whose record is gone:
// older than the records' lifetime, or evicted to keep the store within
// its size. Principal is who started it, so that only they learn why.
type ForgottenJobError struct {
	ID, Principal string
	// Expired: the record outlived its lifetime; otherwise the store's
	// size bound evicted it.
	Expired bool
	Size    int
	TTL     time.Duration
}

func (e *ForgottenJobError) Error() string {
	if e.Expired {
		return fmt.Sprintf("job %s was started on this server more than %s ago and its record has expired (BigQuery keeps query results about a day)", e.ID, e.TTL)
	}
	return fmt.Sprintf("job %s was started on this server but its record was evicted: the server remembers its last %d jobs", e.ID, e.Size)
}

const (
	// DefaultJobRecords is how many job records a JobStore keeps by
	// default: a record is a few hundred bytes, so the store stays within
	// about 20 MB with the trace of the records it dropped.
	DefaultJobRecords = 50000
	// JobRecordTTL is how long a record lives: BigQuery keeps a query's
	// results about 24 hours.
	JobRecordTTL = 24 * time.Hour
)

// JobStoreConfig sizes a JobStore.
type JobStoreConfig struct {
	// Size bounds the records kept (default DefaultJobRecords); TTL is how
	// long each lives (default JobRecordTTL).
	Size int
	TTL  time.Duration
	// OnEvict, when set, is called for each record evicted for room before
	// its TTL (the wiring counts them in a metric).
	OnEvict func()
}

// JobStore keeps job records in memory: a bounded LRU whose records expire,
// and a trace of the records it dropped (of the same size), so that a job
// whose record is gone is refused with the reason rather than as unknown.
type JobStore struct {
	records   *lru.Cache[string, jobEntry]
	forgotten *lru.Cache[string, ForgottenJobError]
	size      int
	ttl       time.Duration
	onEvict   func()
	now       func() time.Time
}

type jobEntry struct {
	JobRecord
	expires time.Time
}

// NewJobStore returns an empty store.
func NewJobStore(cfg JobStoreConfig) *JobStore {
	if cfg.Size <= 0 {
		cfg.Size = DefaultJobRecords
	}
	if cfg.TTL <= 0 {
		cfg.TTL = JobRecordTTL
	}
	s := &JobStore{size: cfg.Size, ttl: cfg.TTL, onEvict: cfg.OnEvict, now: time.Now}
	var err error
	if s.forgotten, err = lru.New[string, ForgottenJobError](cfg.Size); err != nil {
		panic(err) // only for a non-positive size
	}
	if s.records, err = lru.NewWithEvict(cfg.Size, s.dropped); err != nil {
		panic(err)
	}
	return s
}

// dropped runs for every record that leaves the store: evicted for room,
// or removed by Lookup once expired.
func (s *JobStore) dropped(id string, e jobEntry) {
	expired := !s.now().Before(e.expires)
	s.forgotten.Add(id, ForgottenJobError{ID: id, Principal: e.Principal, Expired: expired, Size: s.size, TTL: s.ttl})
	if !expired && s.onEvict != nil {
		s.onEvict()
	}
}

// Record stores j for the store's TTL.
func (s *JobStore) Record(j JobRecord) {
	if j.Started.IsZero() {
		j.Started = s.now()
	}
	s.forgotten.Remove(j.ID)
	s.records.Add(j.ID, jobEntry{JobRecord: j, expires: s.now().Add(s.ttl)})
}

// Lookup returns the record of job id; ErrJobNotRecorded when there is
// none, or a *ForgottenJobError when it expired or was evicted.
func (s *JobStore) Lookup(id string) (JobRecord, error) {
	e, ok := s.records.Get(id)
	if ok && s.now().Before(e.expires) {
		return e.JobRecord, nil
	}
	if ok {
		s.records.Remove(id) // dropped notes it as expired
	}
	if f, ok := s.forgotten.Get(id); ok {
		return JobRecord{ID: id, Principal: f.Principal}, &f
	}
	return JobRecord{}, ErrJobNotRecorded
}
