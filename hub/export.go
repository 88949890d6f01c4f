package hub

import "encoding/json"

// ExportSchema is the version of the JSON lines export this build writes
// and the newest it imports. An import naming a newer one is
// INVALID_ARGUMENT, details {reason: SCHEMA_TOO_NEW, schema, supported}.
const ExportSchema = 1

// Export formats (GET /v1/threads/{id}/export?format=).
const (
	ExportMarkdown = "md"    // readable: prompts, answers, tool calls and their diffs, permission decisions
	ExportJSONL    = "jsonl" // lossless: ExportLine per line
)

// DefaultImportMaxBytes bounds the body of POST /v1/threads/import
// (limits.importMaxBytes): 1 GiB. It is the one exception to the 10 MiB
// cap on request bodies.
const DefaultImportMaxBytes = 1 << 30

// details.reason values of import errors.
const (
	ReasonSchemaTooNew    = "SCHEMA_TOO_NEW"
	ReasonImportTooLarge  = "IMPORT_TOO_LARGE"
	ReasonImportMalformed = "IMPORT_MALFORMED"
)

// ExportRequest says what to export: one thread (ThreadID) or every
// thread of the caller in one folder (Cwd, archived ones included), in
// Format (ExportMarkdown or ExportJSONL).
type ExportRequest struct {
	ThreadID string `json:"threadId,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Format   string `json:"format"`
}

// ExportLine is one line of a JSON lines export. A thread starts with
// {"schema":1,"thread":Thread}; its turns follow ({"turn":Turn}, oldest
// first), then its events ({"event":Event}, in their original order). A
// folder's export is several threads, one after another.
type ExportLine struct {
	Schema int             `json:"schema,omitempty"`
	Thread *Thread         `json:"thread,omitempty"`
	Turn   *Turn           `json:"turn,omitempty"`
	Event  json.RawMessage `json:"event,omitempty"`
}

// ImportResult is the answer of POST /v1/threads/import: the threads it
// created (new ids), and how many turns and events they hold.
type ImportResult struct {
	Threads []Thread `json:"threads"`
	Turns   int      `json:"turns"`
	Events  int      `json:"events"`
}
