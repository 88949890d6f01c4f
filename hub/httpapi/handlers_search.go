package httpapi

import (
	"net/http"
	"net/url"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// search is GET /v1/search?q&agent&folder&from&to&limit&cursor (scope=all:
// every client's threads): hits newest first.
func (s *Server) search(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	v := r.URL.Query()
	q := hub.SearchQuery{Q: v.Get("q"), Agent: v.Get("agent"), Folder: v.Get("folder"), Cursor: v.Get("cursor")}
	var err error
	if q.Limit, err = limitParam(v); err == nil {
		if q.From, err = timeParam(v, "from"); err == nil {
			q.To, err = timeParam(v, "to")
		}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page, err := s.svc.Search(r.Context(), c, q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page.Hits = nonNil(page.Hits)
	s.writeJSON(w, r, http.StatusOK, page)
}

// timeParam reads an optional RFC 3339 time query parameter.
func timeParam(v url.Values, name string) (time.Time, error) {
	s := v.Get(name)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, errorf(hub.CodeInvalidArgument, "%s must be an RFC 3339 time (2006-01-02T15:04:05Z)", name)
	}
	return t, nil
}
