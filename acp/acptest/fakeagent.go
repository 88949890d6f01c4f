// Package acptest provides a scriptable fake Agent Client Protocol (ACP v1)
// agent for tests, in the spirit of net/http/httptest. It produces on demand
// the faults real agents cannot: crashes mid-turn, garbage on stdout, huge
// lines, floods, hangs, orphaned grandchildren, unknown update kinds.
//
// The fake agent is independent of the hub's own ACP code: it writes raw
// JSON-RPC 2.0 itself, one JSON object per line on stdout, and reads one per
// line on stdin. It uses the standard library only.
//
// # Running it
//
// The fake agent is the test binary itself, re-executed. In the package under
// test:
//
//	func TestMain(m *testing.M) {
//		acptest.RunFakeAgentIfRequested()
//		os.Exit(m.Run())
//	}
//
// and in a test, hand the command to whatever starts agent processes:
//
//	path, args, env := acptest.FakeAgentArgv(t, "FAKEAGENT_LOAD_SESSION=1")
//	cmd := exec.Command(path, args...)
//	cmd.Env = append(os.Environ(), env...)
//
// A standalone binary may also call FakeAgentMain from its main function.
// The agent runs until stdin reaches EOF, then exits with status 0 (a prompt
// still running is abandoned), except during hang-hard (see below).
//
// # Options
//
// Options are environment variables, passed as FakeAgentArgv's opts:
//
//	FAKEAGENT_PROTOCOL_VERSION=<n>  initialize answers protocolVersion n (default 1)
//	FAKEAGENT_LOAD_SESSION=1        advertise loadSession and serve session/load
//	FAKEAGENT_SESSION_CAPS=1        advertise sessionCapabilities close, delete,
//	                                list and resume ({} each) and serve those methods
//	FAKEAGENT_ADDITIONAL_DIRS=1     advertise sessionCapabilities.additionalDirectories
//	                                (FAKEAGENT_RECORD shows what was sent)
//	FAKEAGENT_SYSTEM_PROMPT=<modes> advertise sessionCapabilities.systemPrompt
//	                                (unstable): "append" as {}, "override" as
//	                                {mode: {override: {}}}; session/new, load
//	                                and resume refuse (-32602) a systemPrompt
//	                                in a mode not advertised, an empty content
//	                                or a block that is not text, and any
//	                                systemPrompt when unset (FAKEAGENT_RECORD
//	                                shows what was sent)
//	FAKEAGENT_AUTH_REQUIRED=1       authMethods [{id:"fake-login",name:"Fake login"}];
//	                                session/new, session/load and session/resume
//	                                fail with -32000 until authenticate {methodId:"fake-login"};
//	                                advertises auth.logout, and logout signs out again
//	FAKEAGENT_INIT_DELAY_MS=<ms>    sleep before answering initialize
//	FAKEAGENT_CRED_FILE=<file>      with FAKEAGENT_AUTH_REQUIRED: authMethods also
//	                                offers the terminal method {type: "terminal",
//	                                id: "fake-terminal", args: [FakeLoginArg]};
//	                                an agent started while file exists is signed
//	                                in. Run with FakeLoginArg, the program asks
//	                                for a code on its terminal; "1234" writes
//	                                file and exits 0, anything else exits 1
//	FAKEAGENT_KEY_VAR=<NAME>        with FAKEAGENT_AUTH_REQUIRED: authMethods also
//	                                offers the env_var method {type: "env_var",
//	                                id: "fake-key", varName: NAME}; an agent
//	                                started with NAME set (not empty) is signed in
//	FAKEAGENT_RECORD=<file>         append each session/new, session/load,
//	                                session/resume, session/close and
//	                                session/delete request as one JSON line
//	                                {"method","params"} to file
//	FAKEAGENT_PROMPTS=<file>        append each session/prompt request the same
//	                                way (a test counts the prompts received)
//	FAKEAGENT_MCP_CAPS=<list>       agentCapabilities.mcpCapabilities: the
//	                                comma-separated transports among http, sse
//	FAKEAGENT_BOOL_OPTION=1         configOptions add the boolean option
//	                                {id: "fast", type: "boolean"}, set only with
//	                                {type: "boolean", value: true|false}
//	FAKEAGENT_UNIQUE_SESSIONS=1     session/new ids are fake-<pid>-<n>, so a new
//	                                process's session is a new session id
//	FAKEAGENT_TEXT_ONLY=1           promptCapabilities {} (text and resource
//	                                links only: no image, audio or embedded
//	                                context)
//	FAKEAGENT_ATTACH=<socket>       (Unix) hand stdin and stdout to the shared
//	                                fake agent listening on socket
//	                                (ServeFakeAgents) and wait for it
//	FAKEAGENT_MODES=<id>,<id>…      the session modes offered (default
//	                                "default,plan"); the first is the mode a
//	                                session starts (or is adopted) in
//	                                ("yolo,default,plan": an agent that
//	                                starts in an auto-approve mode, as Qwen)
//
// Without FAKEAGENT_LOAD_SESSION or FAKEAGENT_SESSION_CAPS the corresponding
// methods answer -32601, as a strict agent without the capability would.
// FAKEAGENT_GRANDCHILD_SLEEP is reserved for the grandchild command.
//
// # Methods
//
// The fake agent validates the required fields of every request it serves
// and answers -32602 when one is missing or malformed; an unknown sessionId
// is answered -32002. Lines that are not JSON are answered -32700, JSON
// that is not a JSON-RPC 2.0 request, response or notification -32600
// (both with id null).
//
//   - initialize {protocolVersion}: {protocolVersion: 1, agentCapabilities:
//     {loadSession, promptCapabilities: {image: true, audio: true,
//     embeddedContext: true} ({} with FAKEAGENT_TEXT_ONLY),
//     sessionCapabilities: {} or {close: {}, delete: {}, list: {},
//     resume: {}}, mcpCapabilities: {http, sse} (FAKEAGENT_MCP_CAPS),
//     auth: {} or {logout: {}} (FAKEAGENT_AUTH_REQUIRED)},
//     agentInfo: {name: "fakeagent", version: "1.0.0"},
//     authMethods: []}.
//   - authenticate {methodId}: {} for "fake-login" (any id when
//     FAKEAGENT_AUTH_REQUIRED is unset), else -32602.
//   - session/new {cwd, mcpServers}: cwd must be absolute (else -32602).
//     Answers {sessionId: "fake-<n>" (n = 1, 2, …), modes: {currentModeId:
//     "default", availableModes: [{id: "default", name: "Default"}, {id:
//     "plan", name: "Plan"}]}, configOptions: [<model option>]}, where the
//     model option is {id: "model", name: "Model", category: "model", type:
//     "select", currentValue: "fake-small", options: [{value: "fake-small",
//     name: "Fake Small"}, {value: "fake-large", name: "Fake Large"}]}.
//   - session/load {sessionId, cwd, mcpServers}: replays the session's
//     history as session/update notifications, for each past turn a
//     user_message_chunk with the prompt's first text and, if the agent said
//     anything, one agent_message_chunk with all its message text (capped at
//     64 KiB). A session this process does not know (the usual case: the
//     agent was restarted) is adopted with the made-up history
//     user_message_chunk "previous prompt", agent_message_chunk "previous
//     answer". Then answers {modes, configOptions}.
//   - session/resume {sessionId, cwd}: like session/load without the replay.
//   - session/list {cwd?, cursor?}: {sessions: [{sessionId, cwd, title:
//     "Fake session <id>", updatedAt}], nextCursor?} in creation order,
//     filtered by cwd; with FAKEAGENT_LIST_PAGE=n, n a page, nextCursor
//     the index of the next one (a cursor it did not give: -32602).
//     FAKEAGENT_SESSIONS names a JSON file of sessions the agent knows
//     from its start, before any it creates: [{sessionId, cwd, title,
//     updatedAt, history: [[user, agent], …]}] (title and updatedAt
//     listed verbatim; session/load replays the history).
//   - session/close {sessionId}: cancels the running turn as session/cancel
//     would, forgets the session, answers {}. session/delete {sessionId}
//     does the same (the fake agent keeps no history on disk to delete).
//   - session/set_mode {sessionId, modeId}: modeId one of the modes offered (else
//     -32602); sends a current_mode_update notification, then answers {}.
//   - session/set_config_option {sessionId, configId, value}: configId "model"
//     with value "fake-small" or "fake-large" (else -32602); answers
//     {configOptions}.
//   - session/prompt {sessionId, prompt}: runs a script command (below). A
//     second prompt while one runs in the same session is answered -32603.
//   - session/cancel {sessionId} (notification): cancels the session's turn.
//   - $/cancel_request and any other notification: ignored.
//   - any other request: -32601.
//
// Requests are read by one goroutine and prompts run concurrently, so
// session/cancel and the client's answers are read while a turn runs. Every
// session/update of a turn is written before the turn's response. When
// session/cancel arrived during a turn, the turn answers stopReason
// "cancelled" whatever the command (except hang-hard, which never answers).
//
// The fake agent's own requests to the client use ids 1, 2, 3, … (plus 0 and
// "abc" for the ids command). It writes to stderr only for the crash and
// stderr commands, and lines starting "fakeagent: " when the client breaks
// the protocol (e.g. a response for an id it never sent).
//
// # Script commands
//
// The first text content block of a prompt is the script: its first word
// selects the command and the rest are its arguments, separated by spaces
// (paths cannot contain spaces). Tool call ids are "tool-<n>" (n = 1, 2, …
// per process). Commands:
//
//   - echo <text>: one agent_message_chunk whose text is everything after
//     "echo" and the blanks that follow it, verbatim; end_turn.
//   - chunks <b64>…: one agent_message_chunk per argument, its text the
//     argument base64-decoded (so a test's prompt need not hold the text),
//     each flushed on its own; end_turn. thought-chunks <b64>…: the same
//     as agent_thought_chunks. chunks-hang <b64>…: the chunks, then as
//     hang.
//   - tool-raw <b64>: a tool_call {toolCallId, title: "Run it", kind:
//     "execute", status: "pending", rawInput: <the argument, base64 JSON>};
//     end_turn.
//   - crash-with <b64>: writes the argument, base64-decoded, as a line on
//     stdout (not JSON-RPC) and on stderr, then exits with status 3.
//   - think: agent_thought_chunk "Thinking about the request.", then
//     agent_message_chunk "Done thinking."; end_turn.
//   - tools: tool_call {toolCallId, title: "Write hello.txt", kind: "edit",
//     status: "pending", locations: [{path: <cwd>/hello.txt}], content:
//     [{type: "diff", path: <cwd>/hello.txt, oldText: null, newText:
//     "hello\n"}], rawInput: {path, content}}; tool_call_update status
//     "in_progress"; tool_call_update status "completed" with rawOutput
//     {ok: true}; plan {entries: [{content: "Write hello.txt", priority:
//     "high", status: "completed"}, {content: "Report back", priority:
//     "medium", status: "pending"}]}; end_turn.
//   - permission: tool_call {toolCallId, title: "Run make clean", kind:
//     "execute", status: "pending", rawInput: {command: "make clean"}}, then
//     the request session/request_permission {sessionId, toolCall:
//     {toolCallId, title, kind, status}, options: [{optionId: "allow-once",
//     name: "Allow", kind: "allow_once"}, {optionId: "allow-always", name:
//     "Always allow", kind: "allow_always"}, {optionId: "reject-once", name:
//     "Reject", kind: "reject_once"}]}. When answered: tool_call_update status
//     "completed" (an allow option selected) or "failed" (otherwise), then an
//     agent_message_chunk exactly "outcome: selected <optionId>" or
//     "outcome: cancelled" ("outcome: error <code>" for an error answer,
//     "outcome: invalid" for an unreadable one). stopReason "cancelled" if
//     the outcome was cancelled or session/cancel arrived, else end_turn.
//   - slow-permission <ms>: like permission, but sleeps ms milliseconds
//     between the tool_call and the request. If session/cancel arrives
//     during the sleep, no request is made: tool_call_update "failed",
//     "outcome: cancelled", stopReason "cancelled".
//   - unknown-update: a session/update whose update is exactly
//     {"sessionUpdate":"future_kind_xyz","futureField":{"nested":[1,2,3],"flag":true},"note":"from the future","_meta":{"fake":"yes"}}
//     then one whose update is exactly
//     {"sessionUpdate":"usage_update","used":1234,"size":200000,"cost":{"amount":0.0123,"currency":"USD"}}
//     ; end_turn.
//   - usage <used> <size> <amount|-> <currency> [<in> <out>]: a usage_update
//     {used, size, cost: {amount, currency}} (no cost for "-"); the prompt
//     response carries usage {inputTokens: in, outputTokens: out,
//     totalTokens: in+out} when in and out are given; end_turn.
//     usage-hang: the same, then as hang (the usage in the response).
//     usage-permission: the same, then as permission (a tokens-only
//     agent is "usage <used> <size> - USD <in> <out>"; one that reports
//     nothing is hang).
//   - messages: agent_message_chunks "Hello " (messageId m1), "Aside."
//     (m2), "world" (m1), then a completed execute tool_call named "Bash";
//     end_turn.
//   - notice <severity> <title…>: a notice {severity, title, description};
//     says "noticed"; end_turn.
//   - compact [fail]: compaction_update in_progress, two
//     compaction_summary_chunks ("We renamed the parser. ", "Tests
//     pass.") and compaction_update completed, then says "compacted"; with
//     fail, compaction_update failed {error} instead; end_turn.
//   - plan-ops: plan_update {type: items} for plans p1 and p2, then
//     plan_removed p2; end_turn.
//   - rate-limit <seconds>: a usage_update whose _meta is
//     claude-agent-acp's {"_claude/rateLimit": {status: "rejected",
//     resetsAt: now+seconds (unix seconds), rateLimitType: "five_hour"}};
//     says "limited until <resetsAt>"; end_turn.
//   - rate-limit-error <seconds>: the prompt fails with a JSON-RPC error
//     (-32603) whose data is {"_claude/rateLimit": {status: "rejected",
//     resetsAt: now+seconds, rateLimitType: "five_hour"}}.
//   - rate-limit-error-noreset: the same error without resetsAt (a limit
//     that does not say when it ends).
//   - elicit-url <url>: elicitation/create {mode: "url", elicitationId,
//     url, message}, then, once answered, elicitation/complete
//     {elicitationId}; says "elicit: <answer>"; end_turn.
//   - subagent <title…>: subagent_update {sessionId "<session>-sub-<n>",
//     title, description, cwd "/", state running}; under the child's
//     session an agent_message_chunk and a pending execute tool_call, then
//     session/request_permission {allow, reject}; then the
//     subagent_update again with state idle; says "subagent outcome:
//     <answer>"; end_turn.
//   - raw-update <json>: one session/update whose update is <json> exactly
//     as given (any JSON value; a tool_call with a numeric status, content
//     that is not an array, …); end_turn. Not JSON: "bad arguments".
//   - ask <json>: <json> is {toolCall, options}; the request
//     session/request_permission {sessionId, toolCall, options} with both
//     exactly as given; agent_message_chunk "outcome: <result JSON>" or
//     "outcome: error <code>"; end_turn.
//   - elicit <json>: <json> is an object (mode, message, requestedSchema
//     or url, elicitationId, toolCallId: anything, unchecked); the request
//     elicitation/create {sessionId, …that object}; agent_message_chunk
//     "elicit: <result JSON>" or "elicit: error <code>"; end_turn. It waits
//     for the answer as long as the client takes (a slow or absent answer
//     is the client's timeout).
//   - elicit-many <n> <json>: n elicitation/create requests as elicit's,
//     sent at once; when every one is answered, agent_message_chunk
//     "elicit-many <outcome>=<count> …" sorted by outcome, "action:<a>"
//     for an answer, "error:<code>" for an error; end_turn.
//   - commands <name>...: available_commands_update {availableCommands:
//     [{name, description: "Run <name>"}, …]} (an empty list without
//     names); end_turn.
//   - vendor: notifications _fakeagent/status {"state":"busy"} and
//     fakeagent/notice {"text":"no underscore"}, then the request
//     _fakeagent/query {"sessionId"}; agent_message_chunk "vendor <r>" where
//     r is "ok" or the error code (a client should answer -32601); end_turn.
//   - garbage: writes, one per line, exactly: `this is not JSON`, an empty
//     line, `{"jsonrpc":"2.0","method":`, `[1,2,3]`, `{"hello":"world"}`,
//     `{"jsonrpc":"2.0","id":987654321,"result":{}}`; then
//     agent_message_chunk "after garbage"; end_turn.
//   - bigline <bytes>: one agent_message_chunk whose text is
//     FakeText(bytes), on a single line; end_turn.
//   - flood <count> <size>: count agent_message_chunk notifications, each
//     with text FakeText(size-1) and a space (a word ends each chunk, as
//     in prose, so a hub that holds back a possible secret's start can
//     release every chunk whole), as fast as possible (flushed every 64
//     KiB and at the end; stops early if session/cancel arrives); end_turn.
//   - mixed <rounds>: rounds rounds, as fast as possible (flushed at the
//     end), of: agent_message_chunk "m<i>.a é ", agent_message_chunk
//     "m<i>.b 😀 ", agent_thought_chunk "t<i>.a ", agent_thought_chunk
//     "t<i>.b ", agent_message_chunk with an image block {type: "image",
//     mimeType: "image/png", data: MixedImage}, agent_message_chunk
//     "m<i>.c ", tool_call {toolCallId: "mixed-<i>", title: "Step <i>",
//     kind: "other", status: "completed"}, agent_message_chunk "m<i>.d "
//     (i from 0); end_turn.
//   - ticks <count> <rate>: count agent_message_chunks, rate per second,
//     each flushed at once, whose text is the send time in Unix nanoseconds
//     left-aligned in 64 bytes (padded with spaces); end_turn.
//   - hang: never answers, until session/cancel or session/close: then
//     answers stopReason "cancelled".
//   - hang-hard: never answers; ignores session/cancel, session/close, stdin
//     EOF, and SIGINT and SIGTERM from the moment the prompt is read: only a
//     kill stops the process.
//   - crash [code]: agent_message_chunk "about to crash", writes "fatal:
//     simulated crash\n" to stderr, exits with code (default 3) without
//     answering.
//   - noeol: agent_message_chunk "no newline at end" on a line without the
//     trailing newline, then exits 0 (stdout closed) without answering.
//   - grandchild [seconds]: starts a grandchild process (this executable
//     again, sleeping seconds, default 300) whose stdout and stderr are the
//     agent's, so it holds the pipes open; agent_message_chunk
//     "grandchild <pid>"; exits 0 without answering.
//   - daemon [seconds]: starts a grandchild as grandchild does, but in a
//     session (and process group) of its own with stdio on /dev/null, as a
//     daemon would; agent_message_chunk "daemon <pid>"; end_turn.
//   - fs-read <path>: fs/read_text_file {sessionId, path};
//     agent_message_chunk "fs-read ok: <content>" or
//     "fs-read error <code>: <message>" ("fs-read error invalid result:
//     <json>" when the result has no content string); end_turn.
//   - fs-read-many <n> <path>: n fs/read_text_file {sessionId, path}
//     requests sent at once; when every one is answered,
//     agent_message_chunk "fs-read-many <outcome>=<count> …" sorted by
//     outcome, "ok" for a result, "error:<code>" for an error; end_turn.
//   - permissions <n>: n session/request_permission requests sent at once
//     (toolCall {toolCallId: "many-<i>", title: "Step <i>", kind: "execute",
//     status: "pending"}, options allow-once (allow_once) and reject-once
//     (reject_once)); when every one is answered, agent_message_chunk
//     "permissions <outcome>=<count> …" sorted by outcome,
//     "selected:<optionId>", "cancelled" or "error:<code>"; end_turn.
//   - fs-write <path> [text]: fs/write_text_file {sessionId, path, content}
//     where content is everything after the path and one blank, verbatim
//     (may be empty); agent_message_chunk "fs-write ok" or
//     "fs-write error <code>: <message>"; end_turn.
//   - terminal <cmd> [args...]: terminal/create {sessionId, command, args,
//     cwd: <session cwd>, outputByteLimit: 1048576}; tool_call {toolCallId,
//     title: "Run <cmd> [args...]", kind: "execute", status: "in_progress",
//     content: [{type: "terminal", terminalId}]}; terminal/wait_for_exit (if
//     session/cancel arrives meanwhile, terminal/kill first, then keeps
//     waiting); terminal/output; terminal/release; tool_call_update
//     "completed" (exit code 0) or "failed"; agent_message_chunk
//     "terminal exit <exitCode|null> signal <signal|null> truncated <bool>\n<output>"
//     or "terminal error <method> <code>: <message>" at the first failed
//     request (release is still made once created); end_turn.
//   - terminal-bg <cmd> [args...]: terminal/create as terminal; then
//     terminal/output every 20 ms until the command has printed something
//     (at most 10 s); agent_message_chunk "terminal-bg <terminalId>" (or
//     "terminal-bg no output", or a terminal error as terminal); end_turn,
//     leaving the command running and the terminal unreleased: what it
//     prints later is output of a turn that has ended.
//   - terminal-in <cwd> <cmd> [args...]: terminal, with that cwd.
//   - terminal-env <NAME>=<value> <cmd> [args...]: terminal, with env
//     [{name, value}] in terminal/create.
//   - ask-terminal <cmd> [args...]: as an agent that asks before it runs
//     a command: tool_call {toolCallId, title: "`<line>`", kind:
//     "execute", status: "pending", rawInput: {command: <line>}} where
//     line is cmd and args joined with single spaces, then
//     session/request_permission {sessionId, toolCall: {toolCallId,
//     title, kind, status, rawInput}, options: [{optionId: "allow-once",
//     kind: "allow_once"}, {optionId: "reject-once", kind:
//     "reject_once"}]}; allow-once selected: as terminal <cmd> [args...];
//     otherwise tool_call_update "failed" and agent_message_chunk
//     "ask-terminal refused"; end_turn.
//   - ask-always-terminal <cmd> [args...]: as ask-terminal, offering also
//     {optionId: "allow-always", name: "Always allow <cmd>", kind:
//     "allow_always"}; when that is selected the session remembers the
//     line and runs it like allow-once; a remembered line runs at once
//     (agent_message_chunk "ask-always-terminal remembered", then as
//     terminal) without asking.
//   - ask-run <json>: a hostile agent: json is {toolCall, command, args,
//     env: [{name, value}], cwd}; session/request_permission with that
//     toolCall's bytes verbatim and the options of ask-terminal; when
//     allow-once was selected, terminal/create {command, args, env, cwd},
//     wait_for_exit, output; agent_message_chunk "ask-run ran: <output>",
//     "ask-run refused", "ask-run terminal refused <error>" or "ask-run
//     error <error>"; end_turn.
//   - cancel-request: fs/read_text_file {sessionId, path:
//     <cwd>/cancel-request.txt}, immediately followed by $/cancel_request
//     {requestId}; agent_message_chunk "cancel-request result" or
//     "cancel-request error <code>" (a client should answer -32800 if it has
//     not answered yet); end_turn.
//   - stderr <n>: writes FakeText(n) to stderr; end_turn.
//   - ids: fs/read_text_file {sessionId, path: "/nonexistent"} with id 0,
//     then again with id "abc"; agent_message_chunk "ids 0=<r> abc=<r>" where
//     r is the error code or "ok" (ids run in two sessions at once would
//     collide); end_turn.
//   - state: agent_message_chunk "state mode=<mode> model=<model>", the
//     session's mode and model as the prompt found them; end_turn.
//   - anything else (including no text block): agent_message_chunk
//     "unknown command: <the whole first text>"; end_turn.
//
// Missing or malformed numeric arguments give agent_message_chunk
// "bad arguments: <the whole first text>"; end_turn.
package acptest

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// grandchildEnv makes FakeAgentMain sleep that many seconds and exit: the
// grandchild command re-executes the agent with it.
const grandchildEnv = "FAKEAGENT_GRANDCHILD_SLEEP"

// FakeText returns n bytes of the lowercase alphabet repeated
// ("abc…xyzabc…"): the text of bigline, flood and stderr.
func FakeText(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz"
	if n <= 0 {
		return ""
	}
	b := make([]byte, n)
	for done := copy(b, alphabet); done < n; done *= 2 {
		copy(b[done:], b[:done])
	}
	return string(b)
}

// FakeAgentMain runs the fake agent on os.Stdin, os.Stdout and os.Stderr
// until stdin reaches EOF, then exits the process with status 0. It never
// returns. See the package documentation for its behaviour.
func FakeAgentMain() {
	if v := os.Getenv(grandchildEnv); v != "" {
		secs, _ := strconv.Atoi(v)
		time.Sleep(time.Duration(secs) * time.Second)
		os.Exit(0)
	}
	if slices.Contains(os.Args[1:], FakeLoginArg) {
		os.Exit(fakeLogin(os.Stdin, os.Stdout))
	}
	if socket := os.Getenv(AttachEnv); socket != "" {
		os.Exit(attach(socket))
	}
	a := newAgent(os.Stdin, os.Stdout, os.Stderr, readOptions())
	a.serve()
	os.Exit(0)
}

type options struct {
	protocolVersion int
	loadSession     bool
	sessionCaps     bool
	extraDirs       bool   // FAKEAGENT_ADDITIONAL_DIRS
	systemPrompt    string // FAKEAGENT_SYSTEM_PROMPT: "", "append" or "override"
	authRequired    bool
	record          string // FAKEAGENT_RECORD
	prompts         string // FAKEAGENT_PROMPTS
	mcpCaps         string // FAKEAGENT_MCP_CAPS
	credFile        string // FAKEAGENT_CRED_FILE
	keyVar          string // FAKEAGENT_KEY_VAR
	initDelay       time.Duration
	textOnly        bool
	uniqueSessions  bool
	modes           []string        // offered mode ids, the first the start mode
	seeded          []seededSession // FAKEAGENT_SESSIONS
	listPage        int             // FAKEAGENT_LIST_PAGE: session/list page size (0: one page)
}

// seededSession is one session of FAKEAGENT_SESSIONS, known to the agent
// from its start (as if kept on disk by an earlier run).
type seededSession struct {
	SessionID string      `json:"sessionId"`
	Cwd       string      `json:"cwd"`
	Title     string      `json:"title"`
	UpdatedAt string      `json:"updatedAt"`
	History   [][2]string `json:"history"` // [user, agent] exchanges
}

func readOptions() options {
	o := options{protocolVersion: 1}
	if v, err := strconv.Atoi(os.Getenv("FAKEAGENT_PROTOCOL_VERSION")); err == nil {
		o.protocolVersion = v
	}
	o.loadSession = os.Getenv("FAKEAGENT_LOAD_SESSION") == "1"
	o.sessionCaps = os.Getenv("FAKEAGENT_SESSION_CAPS") == "1"
	o.extraDirs = os.Getenv("FAKEAGENT_ADDITIONAL_DIRS") == "1"
	o.systemPrompt = os.Getenv("FAKEAGENT_SYSTEM_PROMPT")
	o.authRequired = os.Getenv("FAKEAGENT_AUTH_REQUIRED") == "1"
	o.textOnly = os.Getenv("FAKEAGENT_TEXT_ONLY") == "1"
	o.record = os.Getenv("FAKEAGENT_RECORD")
	o.prompts = os.Getenv("FAKEAGENT_PROMPTS")
	o.mcpCaps = os.Getenv("FAKEAGENT_MCP_CAPS")
	o.credFile = os.Getenv("FAKEAGENT_CRED_FILE")
	o.keyVar = os.Getenv("FAKEAGENT_KEY_VAR")
	o.uniqueSessions = os.Getenv("FAKEAGENT_UNIQUE_SESSIONS") == "1"
	if v, err := strconv.Atoi(os.Getenv("FAKEAGENT_INIT_DELAY_MS")); err == nil {
		o.initDelay = time.Duration(v) * time.Millisecond
	}
	if v, err := strconv.Atoi(os.Getenv("FAKEAGENT_LIST_PAGE")); err == nil && v > 0 {
		o.listPage = v
	}
	if f := os.Getenv("FAKEAGENT_SESSIONS"); f != "" {
		b, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(b, &o.seeded)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "fakeagent: FAKEAGENT_SESSIONS: %v\n", err)
			os.Exit(2)
		}
	}
	o.modes = defaultModes
	if v := os.Getenv("FAKEAGENT_MODES"); v != "" {
		o.modes = nil
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				o.modes = append(o.modes, id)
			}
		}
		if len(o.modes) == 0 {
			o.modes = defaultModes
		}
	}
	return o
}
