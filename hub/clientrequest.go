package hub

import (
	"encoding/json"
	"strings"
	"time"
)

// Client-side ACP methods: what an agent asks of its client besides
// session/update and session/request_permission. The hub serves them
// itself (its file system, real terminals) unless the thread's owner
// delegated them (ClientCapabilities): then they become client requests.
const (
	MethodReadTextFile  = "fs/read_text_file"
	MethodWriteTextFile = "fs/write_text_file"
	// Every method with this prefix (terminal/create, terminal/output,
	// terminal/wait_for_exit, terminal/kill, terminal/release).
	MethodTerminalPrefix = "terminal/"
)

// ClientRequestTimeout is how long the hub waits for the owner's answer to
// a client request before it answers the agent with a JSON-RPC error.
// terminal/wait_for_exit, which lasts as long as the command, waits up to
// the turn timeout (limits.turnTimeout) instead.
const ClientRequestTimeout = 60 * time.Second

// ClientCapabilities are the ACP clientCapabilities of the editor behind a
// thread (the editor bridge passes on its editor's), in ACP's names. Each
// capability that is true delegates its methods to the thread's owner:
// fs.readTextFile fs/read_text_file, fs.writeTextFile fs/write_text_file,
// terminal every terminal/* method. The others the hub serves itself.
type ClientCapabilities struct {
	FS       FSCapabilities `json:"fs"`
	Terminal bool           `json:"terminal"`
}

// FSCapabilities is ClientCapabilities.FS.
type FSCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

// Any reports whether c delegates anything.
func (c ClientCapabilities) Any() bool {
	return c.FS.ReadTextFile || c.FS.WriteTextFile || c.Terminal
}

// Delegates reports whether c delegates the ACP method.
func (c ClientCapabilities) Delegates(method string) bool {
	switch {
	case method == MethodReadTextFile:
		return c.FS.ReadTextFile
	case method == MethodWriteTextFile:
		return c.FS.WriteTextFile
	case strings.HasPrefix(method, MethodTerminalPrefix):
		return c.Terminal
	}
	return false
}

// ClientRequest is the payload of a client_request event: an agent's
// request for the thread's owner to serve. Params are the agent's ACP
// params (its sessionId is the agent's session id, not the thread id).
//
// The event is stored, so its Params are redacted like any agent text
// (redaction.enabled): a file's content or a terminal's env may hold a
// secret. ParamsRedacted says redaction changed them; the owner then
// reads the params as the agent sent them, while the request is pending,
// with Service.ClientRequestParams (never stored, never streamed).
type ClientRequest struct {
	RequestID      string          `json:"requestId"`
	Method         string          `json:"method"`
	Params         json.RawMessage `json:"params"`
	ParamsRedacted bool            `json:"paramsRedacted,omitempty"`
}

// ClientAnswer is the body of POST
// /v1/threads/{id}/client-requests/{requestId}: exactly one of Result (the
// ACP result, any JSON value) and Error (a JSON-RPC error). The agent gets
// it as its request's answer.
type ClientAnswer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *ClientError    `json:"error,omitempty"`
}

// ClientError is a JSON-RPC error answering a client request.
type ClientError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Check validates an answer: one of result and error, an error with a
// non-zero code and a message.
func (a ClientAnswer) Check() error {
	hasResult := len(a.Result) > 0
	switch {
	case hasResult == (a.Error != nil):
		return Errorf(CodeInvalidArgument, `give exactly one of "result" and "error"`)
	case a.Error != nil && (a.Error.Code == 0 || a.Error.Message == ""):
		return Errorf(CodeInvalidArgument, "error needs a non-zero code and a message")
	}
	return nil
}
