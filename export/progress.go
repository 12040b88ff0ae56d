package export

import "time"

// A caller that asked for progress (job.WithProgress) hears, while a file
// is written, the rows and bytes written so far (a job.Progress without a
// job ID), every progressRows rows at most once per progressEvery.

// progressRows is how often (in rows) the clock is looked at.
const progressRows = 1024

// progressEvery is the least time between two reports: often enough that
// a host shows movement, rare enough to cost nothing.
const progressEvery = time.Second
