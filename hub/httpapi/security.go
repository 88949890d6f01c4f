package httpapi

import (
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/switchboard-hub/switchboard/hub"
)

// UICSP is the Content-Security-Policy of the UI, the one definition used
// both by the hub's browser UI (serveUI) and by the desktop window's asset
// server (app/desktop.go). Agent text is rendered in this page, so nothing
// it holds may reach another origin: images only from the UI itself or
// data: URLs, no audio or video at all, no plugins or frames, requests only
// to the UI's own origin (the hub's API, or wails:// in the window), no
// <base> that would redirect relative URLs, no form submission anywhere.
const UICSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; media-src 'none'; connect-src 'self'; " +
	"object-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Content-Security-Policy values. The UI gets UICSP; every other answer
// (JSON, SSE, redirects) apiCSP, which allows nothing.
const (
	uiCSP  = UICSP
	apiCSP = "default-src 'none'; frame-ancestors 'none'"
)

// allowList is the configured extra hosts and origins, normalised. It is
// immutable: SetAllowed swaps in a new one.
type allowList struct {
	hosts   []string // lower case; "name" or "name:port"
	origins map[string]bool
}

// SetAllowed replaces the extra Host and Origin values accepted (config
// allowedHosts and allowedOrigins). Safe for concurrent use; requests in
// flight finish with the list they started with.
func (s *Server) SetAllowed(hosts, origins []string) {
	al := &allowList{origins: make(map[string]bool, len(origins))}
	for _, h := range hosts {
		if h = normalizeHost(h); h != "" {
			al.hosts = append(al.hosts, h)
		}
	}
	for _, o := range origins {
		if o = normalizeOrigin(o); o != "" {
			al.origins[o] = true
		}
	}
	s.allow.Store(al)
}

func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if strings.Count(h, ":") > 1 && !strings.HasPrefix(h, "[") {
		h = "[" + h + "]" // a bare IPv6 address
	}
	return h
}

func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// hostAllowed reports whether a Host header value names this hub:
// 127.0.0.1, localhost or [::1] at its port, or an allowed host.
func (s *Server) hostAllowed(host string) bool {
	if host == "" {
		return false
	}
	host = strings.ToLower(host)
	port := s.Port()
	ps := strconv.Itoa(port)
	if port > 0 {
		switch host {
		case "127.0.0.1:" + ps, "localhost:" + ps, "[::1]:" + ps:
			return true
		}
	}
	for _, a := range s.allow.Load().hosts {
		if host == a {
			return true
		}
		if _, _, err := net.SplitHostPort(a); err != nil && port > 0 && host == a+":"+ps {
			return true // a name without a port accepts the hub's port
		}
	}
	return false
}

// originAllowed reports whether an Origin header value is the hub's own
// or an allowed one.
func (s *Server) originAllowed(origin string) bool {
	o := normalizeOrigin(origin)
	if port := s.Port(); port > 0 {
		ps := strconv.Itoa(port)
		switch o {
		case "http://127.0.0.1:" + ps, "http://localhost:" + ps, "http://[::1]:" + ps:
			return true
		}
	}
	return s.allow.Load().origins[o]
}

// securityHeaders sets the headers every answer carries. No CORS header is
// ever sent: the hub never answers cross-origin reads.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Content-Security-Policy", apiCSP)
		next.ServeHTTP(w, r)
	})
}

// checkHost refuses a request whose Host does not name this hub (DNS
// rebinding), a missing Host included: 403 FORBIDDEN. It runs before any
// other check. A request that came on a unix socket (`serve --socket`, a
// host's hub reached through the link) passes: no browser reaches a unix
// socket, and only who may open its 0700 folder does.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, unix := r.Context().Value(http.LocalAddrContextKey).(*net.UnixAddr); !unix && !s.hostAllowed(r.Host) {
			s.writeError(w, r, errorf(hub.CodeForbidden, "host not allowed"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkOrigin refuses a request that carries an Origin header (any
// method, SSE GETs included) unless it is the hub's own or an allowed one.
// Requests without Origin (curl, editors, same-origin GETs) pass.
func (s *Server) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if vals, ok := r.Header["Origin"]; ok && (len(vals) != 1 || !s.originAllowed(vals[0])) {
			s.writeError(w, r, errorf(hub.CodeForbidden, "origin not allowed"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkFetchSite refuses what a browser marks Sec-Fetch-Site: cross-site.
func (s *Server) checkFetchSite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(strings.TrimSpace(r.Header.Get("Sec-Fetch-Site")), "cross-site") {
			s.writeError(w, r, errorf(hub.CodeForbidden, "cross-site request refused"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
