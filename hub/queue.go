package hub

import (
	"context"
	"encoding/json"
	"time"
)

// Prompts that wait (issue 33, ADR 0039): each thread has a queue of
// prompts typed while a turn ran. When a turn ends completed the head of
// the queue becomes the next turn; after a cancel or a failure that is not
// a rate limit the queue pauses (Thread.QueuePaused) until the user sends
// the next one; while the thread is limited (Thread.LimitedUntil) it waits
// for the reset.

// QueuedPrompt is one prompt in a thread's queue: the body of a turn
// (TurnInput), its place, and when it was queued.
type QueuedPrompt struct {
	ID       string `json:"id"`
	ThreadID string `json:"threadId"`
	// Position is the prompt's place in its thread's queue, 0 for the
	// head (the next one sent); positions are 0..n-1 with no gaps.
	Position int `json:"position"`
	// Input and Content are the prompt, as TurnInput (one of them).
	// Stored as given (not redacted), for they are what the agent gets;
	// the events that announce a queued prompt carry it redacted.
	Input     string            `json:"input,omitempty"`
	Content   []json.RawMessage `json:"content,omitempty"`
	CreatedAt time.Time         `json:"createdAt"`
	UpdatedAt time.Time         `json:"updatedAt"`
}

// TurnInput is the prompt as the body of a turn.
func (q QueuedPrompt) TurnInput() TurnInput { return TurnInput{Input: q.Input, Content: q.Content} }

// The reasons a thread's queue is paused (Thread.QueuePaused): the last
// turn was cancelled, failed (not for a rate limit), or the agent was
// limited without saying when the limit ends. Nothing is sent until the
// user sends the next prompt (QueueService.SendNext).
const (
	QueuePausedCancelled = "cancelled"
	QueuePausedFailed    = "failed"
	QueuePausedLimited   = "limited"
)

// DequeuedRemoved is the reason of a prompt_dequeued event of a prompt
// the user removed (it did not become a turn). A deleted thread's queue
// goes with it, without events.
const DequeuedRemoved = "removed"

// DequeuedMoved is the reason of a prompt_dequeued event of a prompt
// moved to another thread's queue (QueueService.MoveQueue); the event
// names that thread (movedTo).
const DequeuedMoved = "moved"

// QueueMoveRequest is the body of POST /v1/threads/{id}/queue/move: the
// agent the queue moves to (an installed agent other than the thread's).
type QueueMoveRequest struct {
	AgentID string `json:"agentId"`
}

// MaxQueuedPrompts is how many prompts a thread's queue holds at most.
const MaxQueuedPrompts = 100

// Events of the queue: prompt_queued {queued: QueuedPrompt} when a prompt
// is queued, edited or moved (the positions of the others follow from
// it), prompt_dequeued {queuedId, turnId} when it became a turn or
// {queuedId, reason} when it was dropped.
const (
	EventPromptQueued   = "prompt_queued"
	EventPromptDequeued = "prompt_dequeued"
)

// QueueEdit changes a queued prompt: a nil field is left as it is. Text
// replaces a text prompt's input (a prompt of content blocks cannot be
// edited as text: INVALID_ARGUMENT); Position moves it (clamped to the
// queue).
type QueueEdit struct {
	Input    *string `json:"input,omitempty"`
	Position *int    `json:"position,omitempty"`
}

// QueueService is the capability of thread queues (Services.Queue).
type QueueService interface {
	// Enqueue puts a prompt at the end of the thread's queue. The thread
	// does not have to be running: an idle, unlimited, unpaused thread
	// sends it at once (it is then dequeued into a turn).
	Enqueue(ctx context.Context, c Caller, threadID string, in TurnInput) (QueuedPrompt, error)
	// Queue lists the thread's queue, head first.
	Queue(ctx context.Context, c Caller, threadID string) ([]QueuedPrompt, error)
	// EditQueued edits or moves a queued prompt; NOT_FOUND once it has
	// left the queue.
	EditQueued(ctx context.Context, c Caller, threadID, queuedID string, e QueueEdit) (QueuedPrompt, error)
	// RemoveQueued takes a prompt out of the queue unsent; NOT_FOUND once
	// it has left the queue.
	RemoveQueued(ctx context.Context, c Caller, threadID, queuedID string) error
	// SendNext sends the head of the queue now: it clears a pause and a
	// limit (the user's "Send next" and "Resume") and returns the turn the
	// head became. CONFLICT while a turn runs, NOT_FOUND when the queue is
	// empty.
	SendNext(ctx context.Context, c Caller, threadID string) (Turn, error)
	// MoveQueue moves the queue of a limited or paused thread to a new
	// thread in the same folder and working copy with another agent
	// (ADR 0052), and returns that thread: its prompts leave the first
	// queue and join the new one, in order, in one store transaction;
	// the two threads are linked (ContinuedIn, ContinuedFrom); the new
	// thread's sessions open with the first thread's context block. CONFLICT
	// while a turn runs or when the thread is neither limited nor paused;
	// INVALID_ARGUMENT for its own agent or one not installed.
	MoveQueue(ctx context.Context, c Caller, threadID string, req QueueMoveRequest) (Thread, error)
}

// ErrNoQueue is the NOT_FOUND answer of a hub without queues.
var ErrNoQueue = Errorf(CodeNotFound, "queued prompts are not available")

// QueueStore is the store's side of the queue. A prompt is written
// through Write.Queued and leaves through Write.Dequeue.
type QueueStore interface {
	// QueuedPrompts lists a live thread's queue, head first.
	QueuedPrompts(ctx context.Context, threadID string) ([]QueuedPrompt, error)
	// WaitingThreads lists the live threads whose queue is not empty or
	// that are limited (limitedUntil set): what a start resumes.
	WaitingThreads(ctx context.Context) ([]string, error)
}

// QueueCalls is a QueueService bound to one caller and context, its
// methods without them: the window's bindings embed it (app.Bindings), so
// that Wails binds the queue without app growing. A nil Svc answers
// ErrNoQueue.
type QueueCalls struct {
	Ctx    context.Context
	Caller Caller
	Svc    QueueService
}

// Enqueue is QueueService.Enqueue (POST /v1/threads/{id}/queue).
func (q QueueCalls) Enqueue(threadID string, in TurnInput) (QueuedPrompt, error) {
	if q.Svc == nil {
		return QueuedPrompt{}, ErrNoQueue
	}
	return q.Svc.Enqueue(q.Ctx, q.Caller, threadID, in)
}

// Queue is QueueService.Queue (GET /v1/threads/{id}/queue).
func (q QueueCalls) Queue(threadID string) ([]QueuedPrompt, error) {
	if q.Svc == nil {
		return nil, ErrNoQueue
	}
	return q.Svc.Queue(q.Ctx, q.Caller, threadID)
}

// EditQueued is QueueService.EditQueued (PATCH /v1/threads/{id}/queue/{qid}).
func (q QueueCalls) EditQueued(threadID, queuedID string, e QueueEdit) (QueuedPrompt, error) {
	if q.Svc == nil {
		return QueuedPrompt{}, ErrNoQueue
	}
	return q.Svc.EditQueued(q.Ctx, q.Caller, threadID, queuedID, e)
}

// RemoveQueued is QueueService.RemoveQueued (DELETE /v1/threads/{id}/queue/{qid}).
func (q QueueCalls) RemoveQueued(threadID, queuedID string) error {
	if q.Svc == nil {
		return ErrNoQueue
	}
	return q.Svc.RemoveQueued(q.Ctx, q.Caller, threadID, queuedID)
}

// SendNext is QueueService.SendNext (POST /v1/threads/{id}/queue/next).
func (q QueueCalls) SendNext(threadID string) (Turn, error) {
	if q.Svc == nil {
		return Turn{}, ErrNoQueue
	}
	return q.Svc.SendNext(q.Ctx, q.Caller, threadID)
}

// MoveQueue is QueueService.MoveQueue (POST /v1/threads/{id}/queue/move).
func (q QueueCalls) MoveQueue(threadID string, req QueueMoveRequest) (Thread, error) {
	if q.Svc == nil {
		return Thread{}, ErrNoQueue
	}
	return q.Svc.MoveQueue(q.Ctx, q.Caller, threadID, req)
}
