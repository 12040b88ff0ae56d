package governance

// Config is what the flags set of governance: what agents may read and
// spend, and where budgets and job records live. Each field is named after
// its flag and holds what the flag says; the wiring parses the allowlists
// (ParseAllowlist, ParseConnections, ParseKMSKeys) and builds the state from it
// (NewBudget, NewRedisClient, NewRedis).
type Config struct {
	// Datasets (--datasets) is the dataset allowlist: comma-separated
	// project.dataset or dataset patterns; empty allows every dataset.
	Datasets string
	// Connections (--connections) are the connections statements may use
	// under the dataset allowlist: comma-separated
	// project.location.connection, location.connection or DEFAULT
	// patterns; empty: none.
	Connections string
	// KMSKeys (--kms-keys) are the Cloud KMS keys statements may name
	// under the dataset allowlist: comma-separated key resource names
	// (ParseKMSKeys); empty: none.
	KMSKeys string
	// JobLabels (--job-labels) go on every job, beside the server's own
	// mcp_server, mcp_tool and mcp_client (ParseLabels).
	JobLabels map[string]string
	// Limits are the budgets per caller.
	Limits
	// State (--state) is where budgets and job records live: "memory"
	// (or empty), this process only; or a redis:// or rediss:// URL,
	// shared by every instance that names it.
	State string
	// StatePasswordFile (--state-password-file) holds the Redis password,
	// replacing one in the URL; StateCAFile (--state-ca-file) the PEM CA
	// of a rediss:// store.
	StatePasswordFile string
	StateCAFile       string
	// StatePrefix (--state-prefix) namespaces the Redis keys; empty:
	// DefaultRedisPrefix.
	StatePrefix string
	// StateFailOpen (--state-fail-open) lets queries run while the store
	// cannot be asked, without a budget check; their jobs are charged when
	// it answers again. False: budgets fail closed.
	StateFailOpen bool
}

// Limits bound the bytes billed (and the dollars) per caller, in memory
// (NewBudget) and in Redis (RedisConfig) alike; zero: no limit.
type Limits struct {
	// MaxBytesPerSession (--max-bytes-per-session) is what one caller may
	// spend: the process on stdio, each principal on http.
	MaxBytesPerSession int64
	// MaxBytesPerDay (--max-bytes-per-day) is what one caller may spend
	// per UTC day.
	MaxBytesPerDay int64
	// MaxUSDPerDay (--max-usd-per-day) is what one caller may spend per
	// UTC day in dollars, priced by the USDLimit the wiring gives
	// (Budget.WithUSDPerDay, RedisConfig.USD).
	MaxUSDPerDay float64
}
