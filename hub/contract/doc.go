// Package contract holds the one contract suite of the hub's capabilities
// (hub.Services): contract_test.go runs the same assertions against every
// implementation of them —
//
//   - "engine": hub/engine's Services directly, in process;
//   - "api": hub/client's Remote → hub/httpapi → the same kind of engine,
//     over HTTP on a loopback port;
//
// for each capability: threads and turns, work, usage, settings (read),
// and the NOT_FOUND answer of a capability a hub lacks (a nil field of
// hub.Services). A new implementation (a remote hub, say) is one more
// entry in its impls table; a new capability is one more test in it.
//
// The package has no code of its own: the suite is its tests.
package contract
