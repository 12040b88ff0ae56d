package schema

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// A dataset's location costs one datasets.get, then comes from the cache;
// a missing dataset is NOT_FOUND. The project's dataset locations are the
// distinct ones of its listing, sorted.
func TestDatasetLocations(t *testing.T) {
	ctx := context.Background()
	meta := bqfake.New(t)
	meta.AddDataset("tokyo_sales", "asia-northeast1")
	meta.AddDataset("us_sales", "US")
	meta.AddDataset("us_more", "US")
	meta.AddDataset("eu_sales", "EU")
	meta.AddDataset("loaded", "") // the emulator's loaded datasets say none
	s := newTestService(t, meta, serviceOptions{project: "p", cacheTTL: time.Minute})

	for range 3 {
		loc, err := s.DatasetLocation(ctx, "p", "tokyo_sales")
		if err != nil || loc != "asia-northeast1" {
			t.Fatalf("DatasetLocation = %q, %v", loc, err)
		}
	}
	gets := 0
	for _, p := range paths(meta) {
		if strings.HasPrefix(p, "GET /projects/p/datasets/tokyo_sales?") {
			gets++
		}
	}
	if gets != 1 {
		t.Errorf("%d datasets.get for three lookups, want 1 (cached): %q", gets, paths(meta))
	}
	if loc, err := s.DatasetLocation(ctx, "p", "loaded"); err != nil || loc != "" {
		t.Errorf("DatasetLocation(loaded) = %q, %v; want no location", loc, err)
	}
	if _, err := s.DatasetLocation(ctx, "p", "gone"); err == nil {
		t.Error("DatasetLocation of a missing dataset succeeded")
	}

	locs, err := s.DatasetLocations(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"EU", "US", "asia-northeast1"}; !slices.Equal(locs, want) {
		t.Errorf("DatasetLocations = %q, want %q", locs, want)
	}
}
