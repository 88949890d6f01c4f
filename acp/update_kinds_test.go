//go:build unix

package acp

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func decodeUpdate(t *testing.T, s string) SessionUpdate {
	t.Helper()
	var u SessionUpdate
	if err := json.Unmarshal([]byte(s), &u); err != nil {
		t.Fatalf("unmarshal %s: %v", s, err)
	}
	return u
}

// TestDecodeMessageIDAndToolName: chunks keep their messageId, tool calls
// their name (schema: ContentChunk.messageId, ToolCall.name).
func TestDecodeMessageIDAndToolName(t *testing.T) {
	u := decodeUpdate(t, `{"sessionUpdate":"agent_message_chunk","messageId":"m-1","content":{"type":"text","text":"hi"}}`)
	if u.ParseErr != nil || u.MessageID != "m-1" || u.Content.Text != "hi" {
		t.Fatalf("chunk: %+v", u)
	}
	if u := decodeUpdate(t, `{"sessionUpdate":"agent_message_chunk","messageId":null,"content":{"type":"text","text":"x"}}`); u.MessageID != "" || u.ParseErr != nil {
		t.Fatalf("null messageId: %+v", u)
	}
	u = decodeUpdate(t, `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run ls","name":"Bash"}`)
	if u.ToolCall == nil || u.ToolCall.Name == nil || *u.ToolCall.Name != "Bash" {
		t.Fatalf("tool name: %+v", u.ToolCall)
	}
}

// TestDecodeNotice: severity and title are required; a future severity is
// kept as sent.
func TestDecodeNotice(t *testing.T) {
	u := decodeUpdate(t, `{"sessionUpdate":"notice","severity":"warning","title":"Model switched","description":"Opus is busy"}`)
	if u.ParseErr != nil || *u.Notice != (Notice{Severity: "warning", Title: "Model switched", Description: "Opus is busy"}) {
		t.Fatalf("notice: %+v %v", u.Notice, u.ParseErr)
	}
	if u := decodeUpdate(t, `{"sessionUpdate":"notice","severity":"shout","title":"x"}`); u.Notice == nil || u.Notice.Severity != "shout" {
		t.Fatalf("future severity: %+v", u)
	}
	for _, bad := range []string{
		`{"sessionUpdate":"notice","severity":"info"}`,
		`{"sessionUpdate":"notice","severity":"info","title":""}`,
		`{"sessionUpdate":"notice","title":"no severity"}`,
	} {
		if u := decodeUpdate(t, bad); u.ParseErr == nil || u.Notice != nil || string(u.Raw) != bad {
			t.Errorf("%s: want a parse error and the raw kept, got %+v", bad, u)
		}
	}
}

// TestDecodeCompaction: compaction_update's id, status, summary and error;
// a summary chunk's id and content.
func TestDecodeCompaction(t *testing.T) {
	u := decodeUpdate(t, `{"sessionUpdate":"compaction_update","compactionId":"c1","status":"completed","summary":[{"type":"text","text":"We fixed the parser."}]}`)
	if u.ParseErr != nil || u.Compaction.ID != "c1" || u.Compaction.Status != "completed" || len(u.Compaction.Summary) != 1 || u.Compaction.Summary[0].Text != "We fixed the parser." {
		t.Fatalf("compaction: %+v %v", u.Compaction, u.ParseErr)
	}
	u = decodeUpdate(t, `{"sessionUpdate":"compaction_summary_chunk","compactionId":"c1","content":{"type":"text","text":"more"}}`)
	if u.ParseErr != nil || u.Compaction.ID != "c1" || u.Compaction.Status != "" || u.Content == nil || u.Content.Text != "more" {
		t.Fatalf("summary chunk: %+v %v", u, u.ParseErr)
	}
	for _, bad := range []string{
		`{"sessionUpdate":"compaction_update","status":"completed"}`,
		`{"sessionUpdate":"compaction_update","compactionId":"c1"}`,
		`{"sessionUpdate":"compaction_summary_chunk","compactionId":"c1"}`,
	} {
		if u := decodeUpdate(t, bad); u.ParseErr == nil {
			t.Errorf("%s: want a parse error", bad)
		}
	}
}

// TestDecodePlanOps: plan_update (items) and plan_removed, from the
// unstable schema.
func TestDecodePlanOps(t *testing.T) {
	u := decodeUpdate(t, `{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p1","entries":[{"content":"Read","priority":"high","status":"completed"}]}}`)
	if u.ParseErr != nil || u.PlanOp.PlanID != "p1" || u.PlanOp.Type != "items" || len(u.PlanOp.Entries) != 1 || u.PlanOp.Removed {
		t.Fatalf("plan_update: %+v %v", u.PlanOp, u.ParseErr)
	}
	u = decodeUpdate(t, `{"sessionUpdate":"plan_removed","planId":"p1"}`)
	if u.ParseErr != nil || u.PlanOp.PlanID != "p1" || !u.PlanOp.Removed {
		t.Fatalf("plan_removed: %+v", u.PlanOp)
	}
	if u := decodeUpdate(t, `{"sessionUpdate":"plan_update","plan":{"type":"items","entries":[]}}`); u.ParseErr == nil {
		t.Fatal("plan without planId: want a parse error")
	}
}

// TestDecodeSubagent: a child session's id, title and reported folder.
func TestDecodeSubagent(t *testing.T) {
	u := decodeUpdate(t, `{"sessionUpdate":"subagent_update","sessionId":"child-1","title":"Explore tests","cwd":"/elsewhere"}`)
	if u.ParseErr != nil || u.Subagent.SessionID != "child-1" || u.Subagent.Title != "Explore tests" || u.Subagent.Cwd != "/elsewhere" {
		t.Fatalf("subagent: %+v %v", u.Subagent, u.ParseErr)
	}
	if u := decodeUpdate(t, `{"sessionUpdate":"subagent_update","title":"no id"}`); u.ParseErr == nil {
		t.Fatal("subagent without sessionId: want a parse error")
	}
}

// TestRateLimitFromUsageMeta: claude-agent-acp's _claude/rateLimit in a
// usage_update; only "rejected" with a reset time is a limit.
func TestRateLimitFromUsageMeta(t *testing.T) {
	u := decodeUpdate(t, `{"sessionUpdate":"usage_update","used":10,"size":100,"_meta":{"_claude/rateLimit":{"status":"rejected","resetsAt":1795000000,"rateLimitType":"five_hour"}}}`)
	want := time.Unix(1795000000, 0).UTC()
	if u.ParseErr != nil || u.RateLimit == nil || !u.RateLimit.Until.Equal(want) || u.RateLimit.Type != "five_hour" {
		t.Fatalf("rate limit: %+v %v", u.RateLimit, u.ParseErr)
	}
	for _, s := range []string{
		`{"sessionUpdate":"usage_update","used":10,"size":100,"_meta":{"_claude/rateLimit":{"status":"allowed_warning","resetsAt":1795000000}}}`,
		`{"sessionUpdate":"usage_update","used":10,"size":100,"_meta":{"_claude/rateLimit":{"status":"rejected"}}}`,
		`{"sessionUpdate":"usage_update","used":10,"size":100,"_meta":{"_claude/rateLimit":"nonsense"}}`,
		`{"sessionUpdate":"usage_update","used":10,"size":100}`,
	} {
		if u := decodeUpdate(t, s); u.RateLimit != nil {
			t.Errorf("%s: no limit expected, got %+v", s, u.RateLimit)
		}
	}
	// Milliseconds are recognised.
	if u := decodeUpdate(t, `{"sessionUpdate":"usage_update","used":1,"size":2,"_meta":{"_claude/rateLimit":{"status":"rejected","resetsAt":1795000000000}}}`); u.RateLimit == nil || !u.RateLimit.Until.Equal(want) {
		t.Fatalf("ms: %+v", u.RateLimit)
	}
}

// TestRateLimitFromError: the same object in an error's data.
func TestRateLimitFromError(t *testing.T) {
	info := `{"status":"rejected","resetsAt":1795000000}`
	for _, data := range []string{`{"_meta":{"_claude/rateLimit":` + info + `}}`, `{"_claude/rateLimit":` + info + `}`, info} {
		err := error(&Error{Code: CodeInternalError, Message: "rate limited", Data: json.RawMessage(data)})
		if rl := RateLimitFromError(err); rl == nil || rl.Until.Unix() != 1795000000 {
			t.Errorf("%s: got %+v", data, rl)
		}
	}
	if RateLimitFromError(errors.New("plain")) != nil || RateLimitFromError(&Error{Code: 1, Message: "x"}) != nil {
		t.Fatal("an error without data is no limit")
	}
}

// TestInitializeAdvertisesRenderedUpdates: the client asks for the
// updates it renders: notices and compaction (stable), sub-agents and plan
// operations (unstable).
func TestInitializeAdvertisesRenderedUpdates(t *testing.T) {
	caps := initializeCaps(t, newRecorder())
	for k, want := range map[string]string{"session": `{"notices":{},"compaction":{},"configOptions":{"boolean":{}}}`, "subagents": `{}`, "plan": `{}`} {
		if got := string(caps[k]); got != want {
			t.Errorf("clientCapabilities.%s = %s, want %s", k, got, want)
		}
	}
}
