package bqtype

// TableLayout is what cost advice must know of a table: its size, how it
// is partitioned and clustered. The schema service reads it from
// tables.get through its metadata cache; the query service asks for it
// through its Catalog, without importing schema.
type TableLayout struct {
	// Type is TABLE, VIEW, MATERIALIZED_VIEW, EXTERNAL, SNAPSHOT…
	Type string
	// NumBytes is the table's logical size (tables.get numBytes).
	NumBytes int64
	// Partitioning is nil for a table that is not partitioned.
	Partitioning *PartitionLayout
	// Clustering names the clustering columns, in order.
	Clustering []string
}

// PartitionLayout is how a table is partitioned.
type PartitionLayout struct {
	// Type is DAY, HOUR, MONTH, YEAR (time partitioning) or RANGE
	// (integer range).
	Type string
	// Column is the partition column: the field, or _PARTITIONTIME for a
	// table partitioned by ingestion time.
	Column string
	// ColumnType is the column's type: DATE, TIMESTAMP, DATETIME, INTEGER.
	ColumnType string
	// RequireFilter means BigQuery refuses a query without a filter on
	// Column that prunes partitions.
	RequireFilter bool
	// RangeStart, RangeEnd and RangeInterval describe an integer-range
	// partitioning.
	RangeStart, RangeEnd, RangeInterval int64
}
