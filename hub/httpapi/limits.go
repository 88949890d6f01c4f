package httpapi

import (
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Limits bound what the API hands out (config limits.*). A zero field
// means its default (hub.DefaultStreamsPerClient, hub.DefaultLiveEventBytes).
type Limits struct {
	// StreamsPerClient is how many SSE streams (event streams and streamed
	// turns) one X-Client-ID may hold open at once; the next is
	// 429 TOO_MANY_REQUESTS with Retry-After and details.reason
	// STREAMS_PER_CLIENT, until one closes.
	StreamsPerClient int
	// LiveEventBytes is the largest event written whole on a stream
	// (live or resumed); a larger one is written cut (hub.CutEvent) and
	// is whole in history.
	LiveEventBytes int
	// ImportMaxBytes bounds the body of POST /v1/threads/import
	// (hub.DefaultImportMaxBytes): the one body allowed past MaxBodyBytes.
	ImportMaxBytes int64
}

func (l Limits) withDefaults() Limits {
	if l.StreamsPerClient <= 0 {
		l.StreamsPerClient = hub.DefaultStreamsPerClient
	}
	if l.LiveEventBytes <= 0 {
		l.LiveEventBytes = hub.DefaultLiveEventBytes
	}
	if l.ImportMaxBytes <= 0 {
		l.ImportMaxBytes = hub.DefaultImportMaxBytes
	}
	return l
}

// SetLimits applies new limits: to streams opened from then on, and to
// the events every open stream writes from then on. A client over a
// lowered StreamsPerClient keeps its open streams.
func (s *Server) SetLimits(l Limits) {
	l = l.withDefaults()
	s.limits.Store(&l)
}

func (s *Server) currentLimits() Limits { return *s.limits.Load() }

// streamRetryAfter is the Retry-After of a refused stream: a client that
// closes one may retry at once, one that does not should not spin.
const streamRetryAfter = 5 * time.Second

// streamCounts counts the open SSE streams of each client id.
type streamCounts struct {
	mu   sync.Mutex
	open map[string]int
}

// acquireStream takes one of c's stream slots, or fails with
// TOO_MANY_REQUESTS when it holds them all. release gives it back; call
// it exactly once.
func (s *Server) acquireStream(c hub.Caller) (release func(), err error) {
	limit := s.currentLimits().StreamsPerClient
	sc := &s.streams
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.open[c.ClientID] >= limit {
		return nil, &hub.Error{
			Code:       hub.CodeTooManyRequests,
			Message:    fmt.Sprintf("client %s already has %d event streams open, the configured limit: close one", c.ClientID, sc.open[c.ClientID]),
			Details:    map[string]any{"reason": hub.ReasonStreamsPerClient, "limit": limit},
			RetryAfter: streamRetryAfter,
		}
	}
	if sc.open == nil {
		sc.open = make(map[string]int)
	}
	sc.open[c.ClientID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			sc.mu.Lock()
			defer sc.mu.Unlock()
			if sc.open[c.ClientID]--; sc.open[c.ClientID] <= 0 {
				delete(sc.open, c.ClientID)
			}
		})
	}, nil
}
