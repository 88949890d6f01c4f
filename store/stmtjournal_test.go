package store

import "testing"

// The statement journal's spill size is set before SQLite initializes
// (stmtjournal.go); were SQLite initialized first (by a driver change, or
// a package opening a database at its own initialization), sqlite3_config
// refuses and Open logs why. Setting it again now is refused: SQLite has
// initialized since, which is the order the setting relies on.
func TestStatementJournalSpillSet(t *testing.T) {
	if stmtJournalErr != nil {
		t.Fatal(stmtJournalErr)
	}
	MustOpenDB(t)
	if err := setStmtJournalSpill(stmtJournalSpill); err == nil {
		t.Error("sqlite3_config after the first Open succeeded: the setting's order is not what stmtjournal.go says")
	}
}
