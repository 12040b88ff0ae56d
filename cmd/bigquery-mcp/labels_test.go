package main

import (
	"maps"
	"strings"
	"testing"
)

// --job-labels and BIGQUERY_JOB_LABELS become server.Config.JobLabels (the
// flag wins); a label BigQuery would refuse, or one of the server's own
// keys, stops the server at start-up.
func TestJobLabelsFromFlagsAndEnv(t *testing.T) {
	s, err := parseArgs([]string{"--job-labels", "team=data, env=prod"}, env(map[string]string{"BIGQUERY_JOB_LABELS": "team=ops"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"team": "data", "env": "prod"}; !maps.Equal(s.Governance.JobLabels, want) {
		t.Errorf("JobLabels = %v, want %v", s.Governance.JobLabels, want)
	}
	s, err = parseArgs(nil, env(map[string]string{"BIGQUERY_JOB_LABELS": "team=ops"}))
	if err != nil || !maps.Equal(s.Governance.JobLabels, map[string]string{"team": "ops"}) {
		t.Errorf("from the environment: %v, %v", s.Governance.JobLabels, err)
	}
	if s, err = parseArgs(nil, env(nil)); err != nil || s.Governance.JobLabels != nil {
		t.Errorf("unset: %v, %v", s.Governance.JobLabels, err)
	}
	for _, bad := range []string{"Team=data", "team", "mcp_tool=x", "team=a.b"} {
		if _, err := parseArgs([]string{"--job-labels", bad}, env(nil)); err == nil || !strings.Contains(err.Error(), "job-labels") {
			t.Errorf("--job-labels %q: error %v, want one naming job-labels", bad, err)
		}
	}
}
