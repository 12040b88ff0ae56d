package schema

// The dataset allowlist (--datasets, Config.Datasets) in the metadata
// tools: every name an agent passes is checked after parsing, on the
// project and dataset the request would use, and before the metadata cache,
// so neither a spelling nor a cached answer gets around it.

// checkProject refuses, without a request, a project of which no dataset
// may be read.
func (s *Service) checkProject(project string) error {
	if s.cfg.Datasets.AllowsProject(project) {
		return nil
	}
	return s.cfg.Datasets.Denied("project " + project + " has no dataset in this server's dataset allowlist")
}
