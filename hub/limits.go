package hub

// Defaults of the API's own bounds (config limits.*;
// docs/CONFIGURATION.md). They live here so that the HTTP adapter and the config
// file agree without importing each other.
const (
	// DefaultStreamsPerClient is how many SSE streams one X-Client-ID may
	// hold open at once (limits.streamsPerClient); the next is
	// TOO_MANY_REQUESTS with details.reason ReasonStreamsPerClient.
	DefaultStreamsPerClient = 16
	// DefaultLiveEventBytes is the largest event sent whole on a stream
	// (limits.liveEventBytes); a larger one is sent cut, with
	// "truncated": true and its full size in "bytes", and is whole in
	// history.
	DefaultLiveEventBytes = 1 << 20
	// MaxHistoryBytes is the largest unpaged history answer (64 MiB of
	// JSON); past it GET …/history is 413 with details.reason
	// ReasonHistoryTooLarge, and the client pages with limit and cursor.
	MaxHistoryBytes = 64 << 20
)

// details.reason values of the limits.
const (
	ReasonStreamsPerClient = "STREAMS_PER_CLIENT"
	ReasonHistoryTooLarge  = "HISTORY_TOO_LARGE"
)
