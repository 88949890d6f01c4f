package acptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	codeAuthRequired   = -32000
	codeNotFound       = -32002
)

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// reply is the client's answer to one of the agent's requests.
type reply struct {
	result json.RawMessage // nil on error
	err    *rpcError
}

// errString describes a failed reply as "<code>: <message>".
func (r reply) errString() string {
	return fmt.Sprintf("%d: %s", r.err.Code, r.err.Message)
}

type agent struct {
	in     *bufio.Reader
	errOut io.Writer
	opts   options
	exit   func(int)

	wmu sync.Mutex // guards out
	out *bufio.Writer

	nextReq  atomic.Int64
	nextTool atomic.Int64

	mu          sync.Mutex // guards the fields below
	pending     map[string]chan reply
	sessions    map[string]*session
	order       []string // session ids in creation order
	nextSession int
	authed      bool
	hardHang    bool
}

func newAgent(in io.Reader, out, errOut io.Writer, opts options) *agent {
	a := &agent{
		in:       bufio.NewReaderSize(in, 64<<10),
		out:      bufio.NewWriterSize(out, 64<<10),
		errOut:   errOut,
		opts:     opts,
		exit:     os.Exit,
		pending:  map[string]chan reply{},
		sessions: map[string]*session{},
	}
	for _, sd := range opts.seeded {
		s := a.addSession(sd.SessionID, sd.Cwd)
		s.title, s.updated = sd.Title, sd.UpdatedAt
		for _, h := range sd.History {
			s.history = append(s.history, exchange{user: h[0], agent: h[1]})
		}
	}
	return a
}

// serve reads stdin until EOF.
func (a *agent) serve() {
	for {
		waitStdin() // fakeagent_avail.go
		line, err := a.in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			a.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	a.mu.Lock()
	hard := a.hardHang
	a.mu.Unlock()
	if hard {
		for {
			time.Sleep(time.Hour)
		}
	}
	a.flush()
}

func (a *agent) logf(format string, args ...any) {
	fmt.Fprintf(a.errOut, "fakeagent: "+format+"\n", args...)
}

var nullID = json.RawMessage("null")

func (a *agent) dispatch(line []byte) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil || raw == nil {
		if json.Valid(line) {
			a.replyError(nullID, codeInvalidRequest, "Invalid Request: not a JSON object")
		} else {
			a.replyError(nullID, codeParseError, "Parse error")
		}
		return
	}
	id, hasID := raw["id"]
	methodRaw, hasMethod := raw["method"]
	var version string
	_ = json.Unmarshal(raw["jsonrpc"], &version)
	if !hasMethod && hasID {
		// A response: never answered, whatever its defects.
		if version != "2.0" {
			a.logf("response without jsonrpc \"2.0\": %s", line)
		}
		a.handleResponse(id, raw)
		return
	}
	replyID := nullID
	if hasID && validID(id) {
		replyID = id
	}
	var method string
	if version != "2.0" || !hasMethod || json.Unmarshal(methodRaw, &method) != nil {
		a.replyError(replyID, codeInvalidRequest, "Invalid Request")
		return
	}
	params := raw["params"]
	if !hasID {
		a.handleNotification(method, params)
		return
	}
	if !validID(id) {
		a.replyError(nullID, codeInvalidRequest, "Invalid Request: bad id")
		return
	}
	a.handleRequest(id, method, params)
}

// validID reports whether id is a JSON string or number.
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// idKey normalises a request id for the pending map.
func idKey(id json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "?" + string(id)
	}
	switch v := v.(type) {
	case string:
		return "s:" + v
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return "n:" + strconv.FormatInt(n, 10)
		}
		return "n:" + v.String()
	}
	return "?" + string(id)
}

func (a *agent) handleResponse(id json.RawMessage, raw map[string]json.RawMessage) {
	a.mu.Lock()
	ch, ok := a.pending[idKey(id)]
	delete(a.pending, idKey(id))
	a.mu.Unlock()
	if !ok {
		a.logf("response for unknown id %s", id)
		return
	}
	var r reply
	if e, ok := raw["error"]; ok {
		r.err = &rpcError{}
		if json.Unmarshal(e, r.err) != nil {
			r.err = &rpcError{Code: codeInternalError, Message: "unreadable error object"}
		}
	} else if res, ok := raw["result"]; ok {
		r.result = res
	} else {
		a.logf("response without result or error for id %s", id)
		r.err = &rpcError{Code: codeInvalidRequest, Message: "response without result or error"}
	}
	ch <- r
}

// marshal encodes v as compact JSON without HTML escaping.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("fakeagent: marshal: %v", err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// writeLine writes b and a newline to stdout and flushes.
func (a *agent) writeLine(b []byte) {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	a.out.Write(b)
	a.out.WriteByte('\n')
	a.out.Flush()
}

func (a *agent) flush() {
	a.wmu.Lock()
	a.out.Flush()
	a.wmu.Unlock()
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  any             `json:"params,omitempty"`
}

func (a *agent) reply(id json.RawMessage, result any) {
	a.writeLine(marshal(response{JSONRPC: "2.0", ID: id, Result: result}))
}

func (a *agent) replyError(id json.RawMessage, code int, msg string) {
	a.writeLine(marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: rpcError{Code: code, Message: msg}}))
}

func (a *agent) notify(method string, params any) {
	a.writeLine(marshal(request{JSONRPC: "2.0", Method: method, Params: params}))
}

// newID returns the next id for a request to the client.
func (a *agent) newID() json.RawMessage {
	return json.RawMessage(strconv.FormatInt(a.nextReq.Add(1), 10))
}

// startCall sends a request to the client; its reply arrives on the channel.
func (a *agent) startCall(id json.RawMessage, method string, params any) <-chan reply {
	ch := make(chan reply, 1)
	a.mu.Lock()
	a.pending[idKey(id)] = ch
	a.mu.Unlock()
	a.writeLine(marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params}))
	return ch
}

// call sends a request to the client and waits for its reply.
func (a *agent) call(method string, params any) reply {
	return <-a.startCall(a.newID(), method, params)
}
