//go:build pprof

package app

import (
	"net"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof on http.DefaultServeMux
	"os"
)

// Built with -tags pprof only (never in a release): when
// SWITCHBOARD_PPROF=host:port is set, net/http/pprof listens there, on its
// own listener, so the out-of-process benchmark (app/hubbench -profile) can
// take CPU and heap profiles of the hub it measures.
func init() {
	addr := os.Getenv("SWITCHBOARD_PPROF")
	if addr == "" {
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return
	}
	go http.Serve(ln, nil) //nolint:errcheck // a debugging aid
}
