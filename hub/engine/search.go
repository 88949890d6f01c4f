package engine

import (
	"context"
	"errors"

	"github.com/switchboard-hub/switchboard/hub"
)

// Search implements Service: the store's index, filtered to what the
// caller may see. A query with too many or too short prefix terms is
// refused (checkPrefixes); a search that runs past the engine's search
// timeout (Options.SearchTimeout) is interrupted and answered TIMEOUT with
// details.reason hub.ReasonSearchTimeout. The store runs searches on
// their own connections, so a slow one never holds up other reads.
func (e *Engine) Search(ctx context.Context, c hub.Caller, q hub.SearchQuery) (hub.SearchPage, error) {
	if err := checkCaller(c); err != nil {
		return hub.SearchPage{}, err
	}
	if len(q.Q) > hub.MaxSearchQueryBytes {
		return hub.SearchPage{}, hub.Errorf(hub.CodeInvalidArgument, "q is longer than %d bytes", hub.MaxSearchQueryBytes)
	}
	if q.Limit < 0 || q.Limit > hub.MaxSearchLimit {
		return hub.SearchPage{}, hub.Errorf(hub.CodeInvalidArgument, "limit must be between 1 and %d", hub.MaxSearchLimit)
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.From.After(q.To) {
		return hub.SearchPage{}, hub.Errorf(hub.CodeInvalidArgument, "from must not be after to")
	}
	if err := checkPrefixes(q.Q); err != nil {
		return hub.SearchPage{}, err
	}
	sctx, cancel := context.WithTimeout(ctx, e.searchTimeout)
	defer cancel()
	page, err := e.store.Search(sctx, hub.SearchFilter{SearchQuery: q, ClientID: c.ClientID, All: c.All})
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		te := hub.Errorf(hub.CodeTimeout, "search: the query took longer than %s; narrow it", e.searchTimeout)
		te.Details = map[string]any{"reason": hub.ReasonSearchTimeout, "timeoutMs": e.searchTimeout.Milliseconds()}
		te.Err = err
		return hub.SearchPage{}, te
	}
	return page, err
}
