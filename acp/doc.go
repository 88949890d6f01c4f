// Package acp is the client side of the Agent Client Protocol (ACP v1),
// and a leaf: it knows nothing of threads or SQLite and imports nothing
// internal.
//
//   - jsonrpc.go, queue.go: a JSON-RPC 2.0 peer over newline-delimited
//     stdio whose reader never waits on a handler.
//   - client.go, client_handler.go, types.go, update.go: the connection to
//     one agent (ClientConn) and ACP's messages.
//   - agent.go, process.go, env.go, ring.go: starting an agent (Launch) in
//     a process group of its own, with a filtered environment, its stderr
//     kept in a bounded Ring.
//   - fs.go, terminal.go, terminal_stream.go: the file system and the
//     terminals the client serves agents unless its Client does.
//   - catalog.go: the known agents, merged with the config file's.
package acp
