package schema

import "testing"

// TestSystemPromptCheckedAgainstTheUnstableFile: the client system prompt
// (unstable) is validated against schema.unstable.json: the shape
// Switchboard sends passes, a content that is a string, not blocks, or a
// missing mode does not, and an advertised capability with mode.override
// passes in initialize's answer.
func TestSystemPromptCheckedAgainstTheUnstableFile(t *testing.T) {
	good := frames(1,
		`>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`<{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"systemPrompt":{"mode":{"override":{}}}}}}}`,
		`>{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[],"systemPrompt":{"mode":"append","content":[{"type":"text","text":"Be brief."}]}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
		`>{"jsonrpc":"2.0","id":2,"method":"session/resume","params":{"sessionId":"s1","cwd":"/tmp","systemPrompt":{"mode":"override","content":[{"type":"text","text":"Be brief."}]}}}`,
		`<{"jsonrpc":"2.0","id":2,"result":{}}`,
	)
	tr := NewTraffic()
	for _, f := range good {
		tr.Add(f)
	}
	if len(tr.Invalid) != 0 {
		t.Fatalf("valid system prompt traffic reported: %v", tr.Invalid)
	}
	for _, bad := range []string{
		`{"cwd":"/tmp","mcpServers":[],"systemPrompt":{"mode":"append","content":"Be brief."}}`,
		`{"cwd":"/tmp","mcpServers":[],"systemPrompt":{"content":[{"type":"text","text":"Be brief."}]}}`,
	} {
		tr := NewTraffic()
		tr.Add(frames(1, `>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)[0])
		tr.Add(Frame{Conn: 1, Sent: true, Msg: []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":` + bad + `}`)})
		if len(tr.Invalid) != 1 {
			t.Errorf("session/new with %s: invalid %v, want one problem", bad, tr.Invalid)
		}
	}
}
