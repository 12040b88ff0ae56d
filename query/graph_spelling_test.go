package query

import "testing"

// TestGraphSpellingsRefused: every spelling of a graph outside the
// allowlist, or of a graph name the reader cannot place, is refused from
// the text with no lookup, no dry run and no job: quoting, case,
// comments, line breaks, a range variable of the same name, a computed
// GRAPH_EXPAND argument.
func TestGraphSpellingsRefused(t *testing.T) {
	for _, sql := range []string{
		"SELECT * FROM GRAPH_TABLE(`p.secret`.g MATCH (n) COLUMNS (n.id))",
		"SELECT * FROM GRAPH_TABLE(`p`.`secret`.`g` MATCH (n) COLUMNS (n.id))",
		"SELECT * FROM GRAPH_TABLE(`secret.g` MATCH (n) COLUMNS (n.id))",
		"SELECT * FROM graph_table(Sales.g MATCH (n) COLUMNS (n.id))",
		"SELECT * FROM GRAPH_TABLE(/* sales.g */ secret.g MATCH (n) COLUMNS (n.id))",
		"SELECT * FROM GRAPH_TABLE(\n  secret\n  .g MATCH (n) COLUMNS (n.id))",
		"GRAPH -- sales.g\n secret.g MATCH (n) RETURN n.id",
		"SELECT * FROM sales.orders AS secret, GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))",
		"SELECT (SELECT COUNT(*) FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))) FROM sales.orders AS secret",
		"SELECT * FROM GRAPH_EXPAND(\"secret.g\")",
		"SELECT * FROM GRAPH_EXPAND(r'secret.g')",
		"SELECT * FROM GRAPH_EXPAND('sal' || 'es.g')",
		"SELECT * FROM GRAPH_EXPAND(CONCAT('sales', '.g'))",
		"SELECT * FROM sales.orders |> JOIN GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id)) AS x ON TRUE",
		"INSERT INTO sales.copy SELECT * FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))",
		"CREATE TABLE sales.copy AS GRAPH secret.g MATCH (n) RETURN n.id",
		"CREATE PROPERTY GRAPH sales.g2 NODE TABLES (secret.people)",
		"CREATE PROPERTY GRAPH sales.g2 NODE TABLES (sales.people KEY (id)) EDGE TABLES (`secret.knows` SOURCE KEY (a) REFERENCES people (id) DESTINATION KEY (b) REFERENCES people (id))",
	} {
		t.Run(sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, true)
			addGraph(fake, "p.sales.g", graphDef(t, "p.sales.g", []string{"p.sales.people"}))
			addGraph(fake, "p.secret.g", graphDef(t, "p.secret.g", []string{"p.secret.people"}))
			assertRefusedWithoutJob(t, s, fake, sql)
			if n := fake.graphLookups(); n != 0 {
				t.Errorf("%d lookups, want none", n)
			}
		})
	}
}
