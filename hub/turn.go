package hub

import (
	"encoding/json"
	"time"
	"unicode/utf8"
)

// Turn statuses.
const (
	TurnRunning     = "running"
	TurnCompleted   = "completed"
	TurnCancelled   = "cancelled"
	TurnFailed      = "failed"
	TurnInterrupted = "interrupted" // the hub stopped while it ran
)

// Turn is one prompt and everything the agent did for it.
type Turn struct {
	ID       string `json:"id"`
	ThreadID string `json:"threadId"`
	Status   string `json:"status"`
	Input    string `json:"input"`
	// Content is the prompt as ACP content blocks, when given as such.
	Content json.RawMessage `json:"content,omitempty"`
	// Output is the concatenated text of the turn's message_delta events.
	// The store keeps a long one only as those events: a turn written
	// with an empty Output reads, once ended, its events' text (the
	// store's turn reads).
	Output string `json:"output"`
	// OutputBytes and OutputTruncated are set in a turn_completed event
	// whose turn's output is longer than TurnEventOutputMax: Output then
	// holds its first TurnEventOutputMax bytes (cut at a UTF-8 boundary)
	// and OutputBytes the whole output's size. The history always has the
	// whole output, without these fields (ForEvent).
	OutputBytes     int        `json:"outputBytes,omitempty"`
	OutputTruncated bool       `json:"outputTruncated,omitempty"`
	StopReason      string     `json:"stopReason,omitempty"`
	Error           string     `json:"error,omitempty"`
	StartedAt       time.Time  `json:"startedAt"`
	EndedAt         *time.Time `json:"endedAt,omitempty"`
	// Internal turns (compact's summary request) are hidden from history
	// unless asked for.
	Internal bool `json:"internal,omitempty"`
}

// Ended reports whether the turn reached a final status.
func (t Turn) Ended() bool { return t.Status != TurnRunning }

// TurnEventOutputMax is the most of a turn's output a turn_completed event
// carries (docs/API.md "turn_completed"): a turn's output is held once, in
// the store, not also in every event that announces its end.
const TurnEventOutputMax = 64 << 10

// ForEvent returns t as a turn_completed event carries it: an output over
// TurnEventOutputMax bytes cut to that many (at a UTF-8 boundary), with
// OutputBytes and OutputTruncated set.
func (t Turn) ForEvent() Turn {
	if len(t.Output) > TurnEventOutputMax {
		t.OutputBytes, t.OutputTruncated = len(t.Output), true
		t.Output = CutUTF8(t.Output, TurnEventOutputMax)
	}
	return t
}

// CutUTF8 returns s cut to at most n bytes at a rune boundary.
func CutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
