// Package governance holds what a team decides about agents on its
// warehouse: which datasets they may read (Allowlist), how many bytes they
// may spend (Budget) and how their jobs are labelled for cost attribution
// (labels.go), and who started which job (jobs.go). Budgets and job
// records sit behind one interface, State (state.go), whose default is
// Memory. It makes no BigQuery calls: the query and schema services
// ask it, and it answers from what they tell it.
package governance
