package export

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"
)

// runJob starts a copy or extract job under its chosen ID with run and
// waits for it to end. The ID is chosen before the first attempt, so a
// 409 naming it means an earlier attempt's insert arrived: that job is
// the one waited for, never a second. A caller that goes away while the
// job runs gets it cancelled (best effort), so nothing keeps writing that
// nobody will see.
func runJob(ctx context.Context, client *bigquery.Client, jobID, location string, run func(context.Context) (*bigquery.Job, error)) (*bigquery.JobStatus, error) {
	job, err := run(ctx)
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code == http.StatusConflict && strings.Contains(ge.Message, jobID) {
		job, err = client.JobFromIDLocation(ctx, jobID, location)
	}
	if err != nil {
		return nil, err
	}
	status, err := job.Wait(ctx)
	if err != nil {
		if ctx.Err() != nil {
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = job.Cancel(stop)
		}
		return nil, err
	}
	return status, status.Err()
}
