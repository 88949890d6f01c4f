package engine

import "context"

// SetCheckpointGate has every checkpoint job of e call gate(threadID)
// first (snapshots.go): a test holds a checkpoint with it. Set before any
// turn starts.
func SetCheckpointGate(e *Engine, gate func(threadID string)) { e.checkpointGate = gate }

// CheckOverlapsNow runs the overlap check of thread id (overlaps.go) on
// the caller's goroutine, after its lane settled.
func (e *Engine) CheckOverlapsNow(id string) {
	ctx := context.Background()
	_ = e.settleSnapshots(ctx, id)
	e.checkOverlaps(ctx, id, nil, "")
}
