// Package governance holds what a team decides about agents on its
// warehouse: which datasets they may read (Allowlist), how many bytes they
// may spend (Budget) and how their jobs are labelled for cost attribution
// (labels.go). It makes no BigQuery calls: the query and schema services
// ask it, and it answers from what they tell it.
package governance
