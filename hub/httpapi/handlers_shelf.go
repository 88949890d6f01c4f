package httpapi

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// archiveThreads is POST /v1/threads/archive {cwd?, agent?, idleBefore?}
// → {archived: n}.
func (s *Server) archiveThreads(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	var req hub.ArchiveRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.ArchiveThreads(r.Context(), c, req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, res)
}

// exportThread is GET /v1/threads/{id}/export?format=md|jsonl.
func (s *Server) exportThread(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	id := r.PathValue("id")
	s.export(w, r, c, hub.ExportRequest{ThreadID: id, Format: r.URL.Query().Get("format")}, id)
}

// exportFolder is GET /v1/threads/export?cwd=&format=md|jsonl: every
// thread of the caller in the folder.
func (s *Server) exportFolder(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	q := r.URL.Query()
	name := filepath.Base(q.Get("cwd"))
	s.export(w, r, c, hub.ExportRequest{Cwd: q.Get("cwd"), Format: q.Get("format")}, name)
}

// export streams an export as an attachment named after name. The
// headers are written with the first byte, so an error the Service
// returns before writing anything is a JSON error like any other.
func (s *Server) export(w http.ResponseWriter, r *http.Request, c hub.Caller, req hub.ExportRequest, name string) {
	ct := "text/markdown; charset=utf-8"
	if req.Format == hub.ExportJSONL {
		ct = "application/x-ndjson"
	}
	lw := &lazyWriter{w: w, start: func() {
		w.Header().Set("Content-Type", ct)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(exportName(name, req.Format)))
		w.WriteHeader(http.StatusOK)
	}}
	err := s.svc.ExportThreads(r.Context(), c, req, lw)
	if err != nil && !lw.started {
		s.writeError(w, r, err)
		return
	}
	if err != nil {
		// Too late for a status: the client gets a cut body (no final
		// chunk), and the log says why.
		s.log.Warn("httpapi: export cut short", "path", logPath(r), "err", err)
		panic(http.ErrAbortHandler)
	}
	if !lw.started {
		lw.start()
	}
}

// exportName is the download's file name: the thread id or the folder's
// name, with the format's extension; nothing but [A-Za-z0-9._-].
func exportName(name, format string) string {
	clean := strings.Map(func(r rune) rune {
		if r < 128 && (r == '.' || r == '-' || r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, name)
	if clean == "" || strings.Trim(clean, ".") == "" {
		clean = "threads"
	}
	return "switchboard-" + clean + "." + format
}

// lazyWriter calls start before the first byte it writes.
type lazyWriter struct {
	w       http.ResponseWriter
	start   func()
	started bool
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	if !l.started {
		l.started = true
		l.start()
	}
	return l.w.Write(p)
}

// importThreads is POST /v1/threads/import: a JSON lines export
// (Content-Type application/x-ndjson), read as it arrives, bounded by
// limits.importMaxBytes instead of the 10 MiB body cap, ?cwd= the folder
// the user chose for its threads (hub.ImportRequest) → 201
// {threads, turns, events}.
func (s *Server) importThreads(w http.ResponseWriter, r *http.Request, c hub.Caller) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-ndjson" {
		s.writeError(w, r, errorf(CodeUnsupportedMediaType, "Content-Type must be application/x-ndjson"))
		return
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		s.writeError(w, r, errorf(CodeUnsupportedMediaType, "the body must be UTF-8"))
		return
	}
	max := s.currentLimits().ImportMaxBytes
	if r.ContentLength > max {
		s.writeError(w, r, importTooLarge(max))
		return
	}
	r.Body = http.MaxBytesReader(innermost(w), r.Body, max)
	res, err := s.svc.ImportThreads(r.Context(), c, hub.ImportRequest{Cwd: r.URL.Query().Get("cwd")}, r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		err = importTooLarge(max)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res.Threads = nonNil(res.Threads)
	s.writeJSON(w, r, http.StatusCreated, res)
}

func importTooLarge(max int64) error {
	return &hub.Error{Code: hub.CodePayloadTooLarge, Message: "the import is larger than limits.importMaxBytes",
		Details: map[string]any{"reason": hub.ReasonImportTooLarge, "maxBytes": max}}
}
