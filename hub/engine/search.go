package engine

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
)

// Search implements Service: the store's index, filtered to what the
// caller may see.
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
	return e.store.Search(ctx, hub.SearchFilter{SearchQuery: q, ClientID: c.ClientID, All: c.All})
}
