package governance

import (
	"fmt"
	"path"
	"strings"
)

// Connections are the BigQuery connections statements may use under a
// dataset allowlist (--connections). A connection reaches outside
// BigQuery's datasets (Cloud Storage, Cloud SQL, a model endpoint), where
// the dataset allowlist cannot see, so under an allowlist every connection
// is refused unless the operator lists it. A nil *Connections lists none;
// every method is safe to call on it.
type Connections struct {
	patterns []connectionPattern
	spec     string
}

// connectionPattern is one entry: path.Match patterns for the project and
// the connection, and the location, compared without case as BigQuery
// does. isDefault is set for DEFAULT, the project's default connection.
type connectionPattern struct {
	project, location, connection string
	isDefault                     bool
}

// ParseConnections reads a comma-separated list of
// "project.location.connection" or "location.connection" entries (a bare
// one belongs to defaultProject), or DEFAULT for the default connection;
// "*" is a wildcard within a part. An empty spec returns nil: none.
func ParseConnections(spec, defaultProject string) (*Connections, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	c := &Connections{}
	var shown []string
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.Trim(strings.TrimSpace(entry), "`")
		if entry == "" {
			continue
		}
		if strings.EqualFold(entry, "DEFAULT") {
			c.patterns = append(c.patterns, connectionPattern{isDefault: true})
			shown = append(shown, "DEFAULT")
			continue
		}
		parts := strings.Split(entry, ".")
		if len(parts) == 2 {
			parts = append([]string{defaultProject}, parts...)
		}
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
			return nil, fmt.Errorf("connections: %q is not project.location.connection, location.connection (with --project) or DEFAULT", entry)
		}
		for _, part := range parts {
			if _, err := path.Match(part, ""); err != nil {
				return nil, fmt.Errorf("connections: %q is not a valid pattern: %v", entry, err)
			}
		}
		c.patterns = append(c.patterns, connectionPattern{project: parts[0], location: strings.ToLower(parts[1]), connection: parts[2]})
		shown = append(shown, strings.Join(parts, "."))
	}
	if len(c.patterns) == 0 {
		return nil, fmt.Errorf("connections: %q lists no connection", spec)
	}
	c.spec = strings.Join(shown, ", ")
	return c, nil
}

// String is the list as configured, for hints; "none" when empty.
func (c *Connections) String() string {
	if c == nil {
		return "none"
	}
	return c.spec
}

// Allows reports whether a statement may use the connection named by
// name: [DEFAULT], [location, connection] in jobProject, or [project,
// location, connection].
func (c *Connections) Allows(name []string, jobProject string) bool {
	if c == nil {
		return false
	}
	if len(name) == 2 {
		name = []string{jobProject, name[0], name[1]}
	}
	for _, p := range c.patterns {
		switch {
		case p.isDefault:
			if len(name) == 1 && strings.EqualFold(name[0], "DEFAULT") {
				return true
			}
		case len(name) == 3:
			if match(p.project, name[0]) && match(p.location, strings.ToLower(name[1])) && match(p.connection, name[2]) {
				return true
			}
		}
	}
	return false
}
