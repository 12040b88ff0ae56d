package schema

import (
	"context"
)

// ListsOutsideAllowlist reports whether the credential of this request can
// list a dataset of project that the dataset allowlist does not allow. If it
// can, the allowlist is the only thing between agents and that dataset: a
// bug in the server, or a query shape it does not foresee, would reach it,
// while dataset-level IAM on the server's credential would hold regardless.
//
// It reads the unfiltered listing, bypassing the cache and retries (it
// reports what is, now), and stops at the first such dataset or after
// maxListPages pages. Hidden datasets are left out: BigQuery's anonymous
// datasets of cached query results are among them, and every credential
// that runs queries sees its own. Without an allowlist there is nothing
// outside it.
func (s *Service) ListsOutsideAllowlist(ctx context.Context, project string) (bool, error) {
	if !s.cfg.Datasets.Enabled() {
		return false, nil
	}
	token := ""
	for range maxListPages {
		page, err := s.rest.Datasets.List(project).MaxResults(MaxPageSize).PageToken(token).Context(ctx).Do()
		if err != nil {
			return false, err
		}
		for _, d := range page.Datasets {
			if d.DatasetReference != nil && !s.cfg.Datasets.Allows(project, d.DatasetReference.DatasetId) {
				return true, nil
			}
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	return false, nil
}
