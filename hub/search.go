package hub

import "time"

// Search limits (GET /v1/search ?limit, ?q).
const (
	DefaultSearchLimit  = 20
	MaxSearchLimit      = 100
	MaxSearchQueryBytes = 1024
	// A prefix term (FTS5 "abc*") makes SQLite merge the lists of every
	// word it starts: a query may have at most MaxSearchPrefixTerms of
	// them, each of at least MinSearchPrefixRunes characters; else
	// INVALID_ARGUMENT with details.reason ReasonSearchTooBroad (issue 28:
	// four ~300-byte prefix queries stalled every read for 30 s).
	MaxSearchPrefixTerms = 4
	MinSearchPrefixRunes = 3
	// SearchTimeout bounds one search: past it the search is interrupted
	// and answered 504 TIMEOUT with details.reason ReasonSearchTimeout.
	SearchTimeout = 3 * time.Second
)

// details.reason of the search errors above.
const (
	ReasonSearchTooBroad = "SEARCH_TOO_BROAD"
	ReasonSearchTimeout  = "SEARCH_TIMEOUT"
)

// Search hit kinds (SearchHit.Kind): what the matched text is.
const (
	SearchKindPrompt  = "prompt"  // a turn's prompt (turn_started)
	SearchKindMessage = "message" // an agent message: all its message_delta chunks
	SearchKindThought = "thought" // an agent thought: all its thought_delta chunks
	SearchKindTool    = "tool"    // a tool call's title, command and paths
	SearchKindTitle   = "title"   // a thread's title (thread_updated)
)

// SearchQuery is GET /v1/search: Q in SQLite FTS5 query syntax (words,
// "a phrase", prefix*, AND, OR, NOT, NEAR(…)); the other fields narrow
// the hits. A zero field does not filter.
type SearchQuery struct {
	Q string `json:"q"`
	// Agent is a thread's agent id; Folder a thread's cwd, which matches
	// that folder and the folders under it.
	Agent  string `json:"agent,omitempty"`
	Folder string `json:"folder,omitempty"`
	// From and To bound a hit's time (its first event's): From <= at < To.
	From   time.Time `json:"from,omitzero"`
	To     time.Time `json:"to,omitzero"`
	Limit  int       `json:"limit,omitempty"`  // default DefaultSearchLimit, at most MaxSearchLimit
	Cursor string    `json:"cursor,omitempty"` // SearchPage.NextCursor of the previous page
}

// SearchFilter is a SearchQuery with the caller's visibility: ClientID's
// threads only, unless All.
type SearchFilter struct {
	SearchQuery
	ClientID string
	All      bool
}

// SearchPage is a page of hits, newest first. Indexing is true while the
// hub is still indexing history stored before search existed (or while it
// was switched off): older hits may be missing until it is done.
type SearchPage struct {
	Hits       []SearchHit `json:"hits"`
	NextCursor string      `json:"nextCursor,omitempty"`
	Indexing   bool        `json:"indexing"`
}

// SearchHit is one matched message, thought, prompt, tool call or title.
// Seq is the event it starts at (a message's first chunk), to scroll to.
type SearchHit struct {
	ThreadID    string    `json:"threadId"`
	TurnID      string    `json:"turnId,omitempty"`
	Seq         int64     `json:"seq"`
	Kind        string    `json:"kind"`
	At          time.Time `json:"at"`
	ThreadTitle string    `json:"threadTitle"`
	Agent       string    `json:"agent"`
	Cwd         string    `json:"cwd"`
	// Archived: the hit's thread is archived (search includes archived
	// threads, marked).
	Archived bool `json:"archived,omitempty"`
	// Snippet is the text around the match, cut to about 24 words, in
	// parts: those with Match set are what the query matched. An elided
	// start or end is "…". Plain text: never markup.
	Snippet []SnippetPart `json:"snippet"`
}

// SnippetPart is a piece of a hit's snippet.
type SnippetPart struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}
