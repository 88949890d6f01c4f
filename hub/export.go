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
	// ReasonImportFolder: a thread of the file names a folder the user
	// did not choose (details {line, cwd}); import again with
	// ImportRequest.Cwd (?cwd=) to choose one.
	ReasonImportFolder = "IMPORT_FOLDER"
)

// ImportRequest is what POST /v1/threads/import takes beside the file.
//
// The file is untrusted: its folders are not the user's choice. Cwd, when
// set, is the folder the user chose for every thread of the file (checked
// exactly as POST /v1/threads checks cwd); the file's own folders are then
// ignored. Without it, a thread keeps the file's folder only when that is
// an existing absolute folder where the caller already has a thread (a
// folder the user chose before: an export imported again on the same
// machine); any other folder — relative, missing, or one the user never
// used, "/" included — fails the import with INVALID_ARGUMENT, details
// {reason: IMPORT_FOLDER, line, cwd}, and nothing is stored.
type ImportRequest struct {
	Cwd string `json:"cwd,omitempty"`
}

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
