package engine

import "github.com/switchboard-hub/switchboard/hub"

// Mirror stores and publishes a host's copies (issue 30, hub/hostmirror):
// w holds only rows and events whose ids are "<id>@<host>" (hub/host.go),
// made from what the host streamed. Like every write of the engine's it is
// redacted first (a host's text is untrusted, as agent text is), its events
// get local seqs and reach the global stream, search and export. It queues
// w and returns a channel that receives its result once w is committed
// and published; Writes queued one after another commit in that order.
func (e *Engine) Mirror(w *hub.Write) <-chan error {
	for i := range w.Events {
		if hub.HostOf(w.Events[i].ThreadID) == "" {
			done := make(chan error, 1)
			done <- hub.Errorf(hub.CodeInvalidArgument, "hub: a host's copy names a local thread %q", w.Events[i].ThreadID)
			return done
		}
	}
	return e.submit(w)
}
