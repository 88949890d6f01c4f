package httpapi

import (
	"net/url"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// NewLoginLink makes a one-time login link to this hub, as POST
// /v1/auth/codes does, for the process that runs the Server (the desktop
// app's "Open in browser"): http://127.0.0.1:<port>/auth?code=…, single
// use, short-lived, that opens next (a path on the hub, such as
// "/#/t/<thread id>"). It fails until the port is known.
func (s *Server) NewLoginLink(next string) (LoginLink, error) {
	port := s.port.Load()
	if port == 0 {
		return LoginLink{}, errorf(hub.CodeUpstreamUnavailable, "the hub is not listening yet")
	}
	return s.loginLink("127.0.0.1:"+strconv.FormatInt(port, 10), next)
}

// loginLink makes a code that opens next ("" is "/") and the link to
// GET /auth with it on host.
func (s *Server) loginLink(host, next string) (LoginLink, error) {
	if next == "" {
		next = "/"
	}
	if !sameOriginPath(next) {
		return LoginLink{}, &hub.Error{Code: hub.CodeInvalidArgument,
			Message: "next must be a path on this hub, like / or /#/t/<thread id>",
			Details: map[string]any{"field": "next"}}
	}
	code, exp, err := s.codes.create(next, s.now())
	if err != nil {
		return LoginLink{}, err
	}
	return LoginLink{URL: "http://" + host + "/auth?code=" + url.QueryEscape(code), ExpiresAt: exp.UTC()}, nil
}
