package acptest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The script commands for the updates a real agent cannot be made to send
// on demand (issue 32): grouped messages, notices, compaction, plan
// operations, rate limits, URL elicitation and sub-agents. The package doc
// says what each sends.

// scriptMessages sends message chunks of two messages interleaved, each
// with its messageId: "Hello " (m1), "Aside." (m2), "world" (m1); then a
// tool call named "Bash".
func scriptMessages(r *scriptRun) (string, bool) {
	chunk := func(id, text string) map[string]any {
		c := textChunk("agent_message_chunk", text)
		c["messageId"] = id
		return c
	}
	r.a.update(r.s.id, chunk("m1", "Hello "))
	r.a.update(r.s.id, chunk("m2", "Aside."))
	r.a.update(r.s.id, chunk("m1", "world"))
	r.a.update(r.s.id, map[string]any{"sessionUpdate": "tool_call", "toolCallId": r.a.toolCallID(),
		"title": "List the folder", "name": "Bash", "kind": "execute", "status": "completed"})
	r.t.record("Hello Aside.world")
	return r.end()
}

// scriptNotice sends one notice: notice <severity> <title…>.
func scriptNotice(r *scriptRun) (string, bool) {
	sev, title := splitWord(r.rest)
	if sev == "" || title == "" {
		return r.bad()
	}
	r.a.update(r.s.id, map[string]any{"sessionUpdate": "notice", "severity": sev, "title": title,
		"description": "Sent by the fake agent."})
	r.say("noticed")
	return r.end()
}

// scriptCompact compacts: compaction_update in_progress, two summary
// chunks, completed (or failed with "compact fail").
func scriptCompact(r *scriptRun) (string, bool) {
	id := "compaction-" + strconv.FormatInt(r.a.nextTool.Add(1), 10)
	r.a.update(r.s.id, map[string]any{"sessionUpdate": "compaction_update", "compactionId": id, "status": "in_progress"})
	if strings.TrimSpace(r.rest) == "fail" {
		r.a.update(r.s.id, map[string]any{"sessionUpdate": "compaction_update", "compactionId": id, "status": "failed", "error": "context too small"})
		return r.end()
	}
	for _, s := range []string{"We renamed the parser. ", "Tests pass."} {
		r.a.update(r.s.id, map[string]any{"sessionUpdate": "compaction_summary_chunk", "compactionId": id,
			"content": map[string]string{"type": "text", "text": s}})
	}
	r.a.update(r.s.id, map[string]any{"sessionUpdate": "compaction_update", "compactionId": id, "status": "completed"})
	r.say("compacted")
	return r.end()
}

// scriptPlanOps sends plan_update (items) for plans p1 and p2, then
// plan_removed p2.
func scriptPlanOps(r *scriptRun) (string, bool) {
	for _, id := range []string{"p1", "p2"} {
		r.a.update(r.s.id, map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": id,
			"entries": []map[string]string{{"content": "Step of " + id, "priority": "medium", "status": "pending"}}}})
	}
	r.a.update(r.s.id, map[string]any{"sessionUpdate": "plan_removed", "planId": "p2"})
	return r.end()
}

// scriptRateLimit sends a usage_update whose _meta carries
// claude-agent-acp's "_claude/rateLimit" {status: "rejected", resetsAt:
// now + seconds, rateLimitType: "five_hour"}: rate-limit <seconds>.
func scriptRateLimit(r *scriptRun) (string, bool) {
	v, ok := intArgs(r.rest, 1)
	if !ok {
		return r.bad()
	}
	reset := time.Now().Add(time.Duration(v[0]) * time.Second).Unix()
	r.a.update(r.s.id, map[string]any{"sessionUpdate": "usage_update", "used": 1000, "size": 200000,
		"_meta": map[string]any{"_claude/rateLimit": map[string]any{"status": "rejected", "resetsAt": reset, "rateLimitType": "five_hour"}}})
	r.say(fmt.Sprintf("limited until %d", reset))
	return r.end()
}

// scriptRateLimitError fails the prompt with a JSON-RPC error whose data
// is {"_claude/rateLimit": {status: "rejected", resetsAt: now+seconds}}:
// rate-limit-error <seconds>.
func scriptRateLimitError(r *scriptRun) (string, bool) {
	v, ok := intArgs(r.rest, 1)
	if !ok {
		return r.bad()
	}
	reset := time.Now().Add(time.Duration(v[0]) * time.Second).Unix()
	data := marshal(map[string]any{"_claude/rateLimit": map[string]any{"status": "rejected", "resetsAt": reset, "rateLimitType": "five_hour"}})
	r.t.mu.Lock()
	r.t.fail = &rpcError{Code: codeInternalError, Message: "Claude is temporarily rate limited.", Data: data}
	r.t.mu.Unlock()
	return r.end()
}

// scriptRateLimitNoReset fails the prompt with a JSON-RPC error whose data
// is {"_claude/rateLimit": {status: "rejected"}}, a limit that does not say
// when it ends: rate-limit-error-noreset.
func scriptRateLimitNoReset(r *scriptRun) (string, bool) {
	if strings.TrimSpace(r.rest) != "" {
		return r.bad()
	}
	data := marshal(map[string]any{"_claude/rateLimit": map[string]any{"status": "rejected", "rateLimitType": "seven_day"}})
	r.t.mu.Lock()
	r.t.fail = &rpcError{Code: codeInternalError, Message: "Claude usage limit reached.", Data: data}
	r.t.mu.Unlock()
	return r.end()
}

// scriptElicitURL asks a URL-mode question (elicitation/create {mode:
// "url", elicitationId, url, message}); once answered it sends
// elicitation/complete {elicitationId} and says the answer: elicit-url
// <url>.
func scriptElicitURL(r *scriptRun) (string, bool) {
	url := strings.TrimSpace(r.rest)
	if url == "" || strings.ContainsAny(url, " \t") {
		return r.bad()
	}
	id := "eli-" + strconv.FormatInt(r.a.nextTool.Add(1), 10)
	res := r.a.call("elicitation/create", map[string]any{"sessionId": r.s.id, "mode": "url", "elicitationId": id, "url": url, "message": "Sign in to the tracker"})
	r.a.notify("elicitation/complete", map[string]string{"elicitationId": id})
	if res.err != nil {
		r.say(fmt.Sprintf("elicit: error %d", res.err.Code))
	} else {
		r.say("elicit: " + string(res.result))
	}
	return r.end()
}

// scriptSubagent starts a sub-agent: subagent_update {sessionId
// "<session>-sub-<n>", title, cwd "/" (a folder it must not get), state
// running}; the child's message chunk and tool call; the child's
// session/request_permission; then state idle. Says the outcome:
// subagent <title…>.
func scriptSubagent(r *scriptRun) (string, bool) {
	title := strings.TrimSpace(r.rest)
	if title == "" {
		return r.bad()
	}
	child := r.s.id + "-sub-" + strconv.FormatInt(r.a.nextTool.Add(1), 10)
	announce := func(state string) {
		r.a.update(r.s.id, map[string]any{"sessionUpdate": "subagent_update", "sessionId": child, "title": title,
			"description": "Started by the fake agent", "cwd": "/", "state": map[string]string{"state": state}})
	}
	announce("running")
	r.a.update(child, textChunk("agent_message_chunk", "Looking at the tests."))
	tc := map[string]any{"toolCallId": r.a.toolCallID(), "title": "Run the tests", "kind": "execute", "status": "pending",
		"rawInput": map[string]any{"command": "go test ./..."}}
	r.a.update(child, map[string]any{"sessionUpdate": "tool_call", "toolCallId": tc["toolCallId"], "title": tc["title"], "kind": "execute", "status": "pending"})
	res := r.a.call("session/request_permission", map[string]any{"sessionId": child, "toolCall": tc,
		"options": []map[string]string{{"optionId": "allow", "name": "Allow", "kind": "allow_once"}, {"optionId": "reject", "name": "Reject", "kind": "reject_once"}}})
	announce("idle")
	if res.err != nil {
		r.say(fmt.Sprintf("subagent outcome: error %d", res.err.Code))
	} else {
		r.say("subagent outcome: " + string(res.result))
	}
	return r.end()
}
