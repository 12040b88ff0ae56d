package bqerr

// Documentation an agent (or the person behind it) can follow from an error.
// They are stable public pages; per-reason anchors are not, so none are used.
const (
	errorMessagesURL = "https://cloud.google.com/bigquery/docs/error-messages"
	adcURL           = "https://cloud.google.com/docs/authentication/provide-credentials-adc"
	accessControlURL = "https://cloud.google.com/bigquery/docs/access-control"
	quotasURL        = "https://cloud.google.com/bigquery/quotas"
	querySyntaxURL   = "https://cloud.google.com/bigquery/docs/reference/standard-sql/query-syntax"
)

// HelpURL returns the documentation page that best explains a failure of the
// given code and BigQuery reason (which may be empty). It never returns "".
//
// The code decides first because it says what the agent must fix (the SQL,
// the credentials, a role, the load), and that page is more useful than the
// generic reason table. Reasons that are RESOURCE_EXHAUSTED but not quotas
// (a bytes-billed cap, an oversized result, an over-complex query) point at
// the error table instead, where their troubleshooting lives.
func HelpURL(code Code, reason string) string {
	switch code {
	case AuthError, Unauthenticated:
		return adcURL
	case PermissionDenied:
		return accessControlURL
	case QueryError:
		return querySyntaxURL
	case ResourceExhausted:
		switch reason {
		case "bytesBilledLimitExceeded", "responseTooLarge", "resourcesExceeded", "billingTierLimitExceeded":
			return errorMessagesURL
		}
		return quotasURL
	}
	return errorMessagesURL
}

// DefaultHint says what an agent should do next about a failure of the given
// code when nothing more specific is known. [From] uses more precise hints
// for BigQuery reasons; callers of [New] may use this one.
func DefaultHint(code Code) string {
	switch code {
	case InvalidArgument:
		return "Correct the request (names, parameters, values) and send it again; sending it unchanged will fail the same way."
	case QueryError:
		return "Fix the SQL and run it again; use dry_run_sql to check it without running it."
	case SchemaError:
		return "Compare the values or the requested schema with the table's schema (column names, types and modes) and make them match."
	case NotFound:
		return "Check the name: use list_datasets and list_tables to see what exists, and use the fully qualified project.dataset.table form."
	case PermissionDenied:
		return "Ask the user to grant this identity the needed BigQuery role (for example roles/bigquery.dataViewer on the dataset and roles/bigquery.jobUser on the project); retrying will not help."
	case Unauthenticated:
		return "Ask the user to re-authenticate (gcloud auth application-default login) or to check the service account and its key, then try again."
	case AuthError:
		return "Ask the user to run `gcloud auth application-default login`, or to set GOOGLE_APPLICATION_CREDENTIALS to a service account key file and check that the service account is enabled, then restart the server."
	case ResourceExhausted:
		return "A BigQuery quota or limit was reached: wait before retrying, or make the request smaller."
	case Unavailable:
		return "BigQuery could not be reached or is unhealthy right now; retry later."
	case DeadlineExceeded:
		return "Narrow the query (filter on the partition column, select fewer columns, add a LIMIT) or raise timeoutSeconds within the server maximum."
	case Internal:
		return "Something failed inside BigQuery or this server; retry later, and report it if it keeps happening."
	}
	return "Check the request and try again; report the problem if it keeps happening."
}
