package hub

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"
)

// Store is the hub's durable state: threads, turns, permissions, agent
// processes and the append-only event log. store/ implements it on SQLite.
//
// Writes go through Commit / CommitAsync: every Write is applied in one
// transaction-scoped unit, in submission order, by a single writer that
// groups many Writes into one SQLite commit. A Write is all or nothing.
// Reads see only committed data.
type Store interface {
	// Commit applies w durably and returns once it is committed; w.Events
	// then have their Seq set.
	Commit(ctx context.Context, w *Write) error
	// CommitAsync queues w and returns at once (it blocks only while the
	// writer's queue is full: backpressure). done is called on the writer
	// goroutine after w is committed or failed, in submission order; it must
	// not block or call the Store.
	CommitAsync(w *Write, done func(*Write, error))

	GetThread(ctx context.Context, id string) (Thread, error)
	// ThreadsBySession returns agent's live threads bound to one of the
	// agent sessions ids: imported from it (Thread.Imported) or whose
	// last session it is (AgentSessionID).
	ThreadsBySession(ctx context.Context, agent string, ids []string) ([]Thread, error)
	// ListThreads returns a page of threads, newest (by UpdatedAt) first.
	ListThreads(ctx context.Context, f ThreadFilter) ([]Thread, string, error)

	GetTurn(ctx context.Context, id string) (Turn, error)
	// ListTurns returns a thread's turns, oldest first.
	ListTurns(ctx context.Context, threadID string, includeInternal bool) ([]Turn, error)
	// ListTurnsPage returns up to limit of a thread's turns oldest first,
	// after cursor (from a previous page; "" for the first), and the cursor
	// of the next page ("" on the last).
	ListTurnsPage(ctx context.Context, threadID string, includeInternal bool, cursor string, limit int) ([]Turn, string, error)
	// RunningTurns lists every turn still marked running (restart recovery).
	RunningTurns(ctx context.Context) ([]Turn, error)

	GetPermission(ctx context.Context, id string) (Permission, error)
	ListPermissions(ctx context.Context, f PermissionFilter) ([]Permission, error)
	// QueryPermissions returns up to f.Limit (1 to MaxPermissionPage) of
	// the permissions f selects, newest first (by CreatedAt, then
	// insertion), after f.Cursor, and the next page's cursor ("" on the
	// last). A malformed cursor is INVALID_ARGUMENT.
	QueryPermissions(ctx context.Context, f PermissionFilter) ([]Permission, string, error)

	// ListRules returns every remembered rule, oldest first.
	ListRules(ctx context.Context) ([]RememberedRule, error)

	// Events returns up to f.Limit events with Seq > f.After, in Seq order.
	Events(ctx context.Context, f EventFilter) ([]Event, error)
	// LastSeq is the highest committed Seq (0 when the log is empty).
	LastSeq(ctx context.Context) (int64, error)

	// Search returns a page of the documents matching f.Q, newest first.
	// A malformed query (FTS5 syntax), filter or cursor is
	// INVALID_ARGUMENT.
	Search(ctx context.Context, f SearchFilter) (SearchPage, error)

	// AgentProcesses lists the agent processes recorded as running.
	AgentProcesses(ctx context.Context) ([]AgentProcess, error)

	// ElicitationStore: the agents' questions (hub/elicitation.go).
	ElicitationStore
	// UsageStore: the usage ledger (hub/usage.go).
	UsageStore
	// QueueStore: the threads' queued prompts (hub/queue.go).
	QueueStore

	// Close flushes queued writes and closes the database.
	Close() error
}

// Write is one atomic unit of change. Rows are upserted by id, but for
// ThreadChanges, which change an existing thread field by field.
type Write struct {
	Threads     []Thread
	Turns       []Turn
	Permissions []Permission
	// Decide, when set, is applied first: it fails the whole Write with a
	// CONFLICT *Error unless the permission is still pending (a decision is
	// single-use), NOT_FOUND if it does not exist.
	Decide *Permission
	// Escalate, when set, records Escalate.EscalatedAt on a permission
	// that is still pending (after Decide): CONFLICT when it is not.
	Escalate *Permission
	// Rules are remembered rules to add; DeleteRules removes rules by id
	// (NOT_FOUND for an id that is not stored). A deleted thread's rules
	// are removed with it (DeleteThreads).
	Rules       []RememberedRule
	DeleteRules []string
	// Events are appended; the store sets Seq (and fills ClientID from the
	// thread when empty).
	Events []Event
	// Copies says the Write holds only copies of what another hub stored
	// durably first: a host's events and rows (ADR 0046). The store
	// commits it without waiting out its group-commit window (ADR 0012;
	// the host's store grouped them, ADR 0054), and a batch of nothing
	// but copies without syncing the WAL (ADR 0055): a power cut may
	// take the last of them back, and the mirror copies them again from
	// the host, after the last one kept. A later synced commit makes them
	// durable with it; a killed process loses none.
	Copies bool
	// Chain, when set, orders the Write after the earlier Writes of its
	// chain that were queued before it: once one of them failed, the store
	// applies none of the later ones (each fails with ErrChainBroken)
	// until the chain is Reset. A writer that queues Writes without
	// waiting for each (the host mirror's pipeline) keeps their order
	// through a refusal this way.
	Chain *WriteChain
	// Coalesce marks a Write of one message_delta or thought_delta event
	// (payload made by TextPayload) and nothing else. The store may join
	// it to the delta of an earlier Coalesce Write that commits in the
	// same transaction — same thread, turn and type, with nothing else of
	// that thread's between them, the joined payload within DeltaJoinMax
	// (JoinTextPayloads) — instead of storing an event of its own: the
	// earlier event then holds both texts, this Write's Events is emptied,
	// and it fails if that event does. The log's text and its order within
	// each thread are unchanged; there are fewer, longer deltas.
	Coalesce bool
	// AgentProcs are recorded; ForgetProcs removed (by PID).
	AgentProcs  []AgentProcess
	ForgetProcs []int
	// SessionStates set the modes, config options and commands of existing
	// threads, applied after Threads. A nil field is left as stored. Thread
	// upserts never change these columns: only SessionStates does, so a
	// thread written from an older read cannot undo a mode change.
	SessionStates []SessionState
	// DeleteThreads deletes what these threads said, after Threads and
	// before Events are applied: their turns, permissions and events (and
	// any index over their text); each thread's row stays, marked deleted
	// and stripped of its text (title, cwd, summary, session state), as a
	// tombstone that keeps its id taken and every read hiding it. The
	// event log keeps its positions: Seq is never reused. Rows that are
	// not text (a future usage ledger's costs) stay. Events later written
	// for a deleted thread are stored without their payload.
	DeleteThreads []string
	// ThreadChanges change fields of existing threads field by field,
	// after SessionStates: a change writes only the fields it sets, so
	// changes made from different reads of a thread (a rename that
	// overlaps the end of a turn) never undo one another. Every state
	// change of an existing thread goes through here; Threads is for
	// creating one (and for its deletion's tombstone). A change to a thread
	// that does not exist or was deleted fails the Write with NOT_FOUND.
	ThreadChanges []ThreadChange
	// Usage are appended to the usage ledger, after Events; the store sets
	// each record's Cost (UsageRecord).
	Usage []UsageRecord
	// Overrides are budget overrides upserted by id, after Usage.
	Overrides []BudgetOverride
	// Elicitations are upserted by id, after Permissions.
	Elicitations []Elicitation
	// AnswerElicitation, when set, is applied first (with Decide): it
	// records Status, DecidedBy and DecidedAt on an elicitation that is
	// still pending, CONFLICT when it is not (an answer is single-use),
	// NOT_FOUND when there is none.
	AnswerElicitation *Elicitation
	// Dequeue are queued prompts that leave their queue, by id, applied
	// first (after Decide): a Write whose prompt is no longer queued fails
	// whole with NOT_FOUND. A prompt becomes a turn in the Write that
	// stores the turn and dequeues it, so it is never sent twice.
	Dequeue []string
	// Queued are queued prompts upserted by id, after Dequeue (queued,
	// edited or moved: the engine writes every prompt whose position
	// changed).
	Queued []QueuedPrompt
}

// ThreadChange sets some fields of one thread (Write.ThreadChanges); a nil
// pointer, an empty Status or a zero UpdatedAt leaves the field as stored.
type ThreadChange struct {
	ThreadID       string
	Title          *string
	Status         string
	Summary        *string
	AgentSessionID *string
	CompactedAt    *time.Time // set by compaction (never cleared)
	// Archived sets the thread's archived flag.
	Archived *bool
	// Worktree, when set, replaces the thread's worktree (issue 19).
	Worktree *Worktree
	// ImportedHistory, when set, changes where an imported thread's
	// history is (Thread.Imported.History); nothing for another thread.
	ImportedHistory *string
	// LimitedUntil, when set, becomes the thread's limitedUntil; a pointer
	// to the zero time clears it (the limit is over).
	LimitedUntil *time.Time
	// QueuePaused, when set, becomes the thread's queuePaused ("" clears
	// it: the queue runs again).
	QueuePaused *string
	// Instructions, when set, replaces the thread's instructions (their
	// Delivery changes when a session opens; ADR 0050).
	Instructions *ThreadInstructions
	// ContinuedIn, when set, becomes the thread's continuedIn (the
	// thread its queue moved to).
	ContinuedIn *string
	// UpdatedAt becomes the thread's updatedAt when it is later than the
	// stored one: a thread's updatedAt never goes back, so of two
	// overlapping changes the one committed last cannot hide the other
	// from a client that keeps the newer copy.
	UpdatedAt time.Time
	// Announce has the store append to the Write's Events a thread_updated
	// event {"thread": …} carrying the thread as this change left it,
	// read in the same transaction (so its status, title and session
	// state are never older than what the log said before it), at
	// UpdatedAt (the thread's updatedAt when UpdatedAt is zero).
	Announce bool
	// Overlaps, when set, are put in the announced thread (Announce):
	// they are the engine's, never stored with the thread, and go in the
	// event before it is stored so that it is the same stored and
	// streamed.
	Overlaps []Overlap
	// Thread is set by the store once the Write has committed: the thread
	// as this change left it.
	Thread Thread
}

// SessionState is a thread's agent-session state as the agent reported it
// (Thread.Modes, Thread.ConfigOptions and Thread.AvailableCommands, raw).
type SessionState struct {
	ThreadID          string
	Modes             json.RawMessage
	ConfigOptions     json.RawMessage
	AvailableCommands json.RawMessage
}

// ThreadFilter selects threads. ClientID "" with All false selects none.
type ThreadFilter struct {
	ClientID string
	All      bool // every client's threads
	Cwd      string
	Status   string // "" for any (recovery looks for "running")
	// Archived is one of the Archived* values: ArchivedAny (the zero
	// value) selects every thread.
	Archived string
	// Agent, when set, selects only that agent's threads.
	Agent string
	// UpdatedBefore, when set, selects only threads not updated since.
	UpdatedBefore time.Time
	Limit         int    // default 50, max 500
	Cursor        string // from a previous page
}

// PermissionFilter selects permissions. The fields after Status are
// QueryPermissions' only.
type PermissionFilter struct {
	ClientID string
	All      bool
	ThreadID string
	Status   string // "" for any
	// DecidedBy is a prefix of Permission.DecidedBy ("" for any).
	DecidedBy string
	Agent     string
	// From and To bound CreatedAt (From ≤ CreatedAt ≤ To); zero: unbounded.
	From, To time.Time
	Limit    int
	Cursor   string
}

// EventFilter selects events. With ThreadID set, only that thread's.
type EventFilter struct {
	After    int64
	ThreadID string
	TurnID   string
	ClientID string
	All      bool
	Limit    int // default 1000
}

// AgentProcess records a running agent process so that a hub restarted
// after a crash can stop what its previous run left behind. StartTime
// guards against a reused pid.
type AgentProcess struct {
	PID       int
	StartTime time.Time
	ThreadID  string
	Agent     string
}

// WriteChain links Writes queued one after another (Write.Chain). Safe
// for concurrent use: the store breaks it on its writer goroutine, its
// owner resets it once none of its Writes is queued.
type WriteChain struct{ broken atomic.Bool }

// Break marks the chain failed: its Writes not yet applied fail.
func (c *WriteChain) Break() { c.broken.Store(true) }

// Broken reports whether a Write of the chain failed since its last Reset.
func (c *WriteChain) Broken() bool { return c.broken.Load() }

// Reset makes the chain whole again; its owner calls it once no Write of
// the chain is queued.
func (c *WriteChain) Reset() { c.broken.Store(false) }

// ErrChainBroken fails a Write of a WriteChain that was not applied
// because an earlier one of its chain failed.
var ErrChainBroken = errors.New("hub: not stored: an earlier write of its chain failed")
