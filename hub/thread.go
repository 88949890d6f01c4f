package hub

import "time"

// Thread statuses.
const (
	ThreadIdle    = "idle"
	ThreadRunning = "running"
	ThreadClosed  = "closed"
)

// Thread is a conversation with one agent in one folder, owned by the
// client that created it.
type Thread struct {
	ID        string    `json:"id"`
	Agent     string    `json:"agent"`
	Cwd       string    `json:"cwd"`
	Title     string    `json:"title"`
	ClientID  string    `json:"clientId"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`

	// Summary is the thread's stored summary (from compact), used as
	// context when a session cannot be reopened.
	Summary string `json:"-"`
	// AgentSessionID is the agent's ACP session id of the thread's last
	// session, for session/load or session/resume.
	AgentSessionID string `json:"-"`
	// Deleted threads are kept for the event log's integrity but are
	// invisible through every read.
	Deleted bool `json:"-"`
}
