package emulator

import (
	"context"
	"fmt"
	"strings"

	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"
)

// PartitionedSample is shop.events_by_day: partitioned by day on its DATE
// column and clustered by customer_id, the table cost advice is tried on.
const PartitionedSample = "shop.events_by_day"

// CreatePartitionedSample makes PartitionedSample through the emulator's
// tables.insert, which keeps partitioning and clustering (DDL PARTITION BY
// is not emulated). A table already there is kept.
func CreatePartitionedSample(ctx context.Context, url string) error {
	svc, err := bq.NewService(ctx, option.WithEndpoint(url), option.WithoutAuthentication())
	if err != nil {
		return err
	}
	_, err = svc.Tables.Insert(Project, "shop", &bq.Table{
		TableReference:   &bq.TableReference{ProjectId: Project, DatasetId: "shop", TableId: "events_by_day"},
		Schema:           &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "day", Type: "DATE"}, {Name: "customer_id", Type: "INTEGER"}, {Name: "amount", Type: "FLOAT"}}},
		TimePartitioning: &bq.TimePartitioning{Type: "DAY", Field: "day"},
		Clustering:       &bq.Clustering{Fields: []string{"customer_id"}},
	}).Context(ctx).Do()
	if err != nil && !strings.Contains(err.Error(), "lready") {
		return fmt.Errorf("tables.insert %s: %w", PartitionedSample, err)
	}
	return nil
}
