//go:build !headless

package app

import (
	"net/http"

	"github.com/switchboard-hub/switchboard/hub/httpapi"
)

// windowCSP is the window's asset server middleware: every answer carries
// the Content-Security-Policy of the browser UI (httpapi.UICSP, the one
// definition), so agent text rendered in the window can no more load a
// remote image, play media or reach another origin than it can in a
// browser. WebKitGTK (2.36+, the webkit2_41 build), WKWebView and WebView2
// apply response headers of the wails:// scheme, runtime events and
// bindings included (checked by hand under Xvfb: a remote <img>, <video>
// and fetch made no request with it, all three did without).
func windowCSP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", httpapi.UICSP)
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}
