// Package hub is Switchboard's domain: the types every surface speaks
// (Thread, Turn, Event, Permission, Agent, Settings), the Service interface
// every surface calls, directly (the window) or through the HTTP/SSE API
// (the tray, the editor bridge, scripts) (service.go), the Store interface
// the engine writes through (store.go), and coded errors (errors.go) that
// each adapter maps to its transport in one table. It imports nothing
// internal.
//
// hub/engine implements Service, hub/httpapi serves it over HTTP/SSE, and
// store implements Store on SQLite.
package hub
