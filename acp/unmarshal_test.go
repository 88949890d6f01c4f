//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// unmarshalSeeds are lines an agent might send, hostile ones included.
var unmarshalSeeds = []string{
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}}}`,
	`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`,
	`{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"boom","data":{"a":[1,2]}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[]}}`,
	// invalid UTF-8, a lone surrogate, NUL and escapes in the text
	"{\"method\":\"session/update\",\"params\":{\"sessionId\":\"s\",\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"a\xff\xfeb\xc3\"}}}}",
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\ud800 \udc00x \u0000 \"q\" \\ \/ \u00e9 \ud83d\ude00"}}}}`,
	// repeated members, names in another case
	`{"method":"session/update","method":"other","params":{"sessionId":"a","sessionId":"b","update":{"sessionUpdate":"plan","entries":[{"content":"x","priority":"high","status":"pending"}],"entries":[]}}}`,
	`{"METHOD":"session/update","Params":{"SessionID":"s","UPDATE":{"sessionupdate":"agent_thought_chunk","Content":{"TYPE":"text","Text":"t"}}}}`,
	// wrong types, nulls, missing parts
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":42}}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":null}}}`,
	`{"method":"session/update","params":{"sessionId":null,"update":{"sessionUpdate":"tool_call","toolCallId":"t","title":null,"content":null,"locations":[{"path":"/a","line":3}],"rawInput":{"cmd":"ls"}}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","locations":[{"path":"/a","line":3.5}]}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","currentModeId":"code"}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":""}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":[]}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1e400}}}`,
	`{"id":1e3,"result":null}`,
	`{"id":null,"method":"x"}`,
	`{"jsonrpc":"2.0"} trailing`,
	`{"jsonrpc":"2.0",}`,
	`[1,2,3]`,
	`"just a string"`,
	` { "method" : "session/update" , "params" : { } } `,
	// nested past both decoders' depth limit, and just under it
	`{"method":"x","params":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`{"method":"x","params":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`,
	"\xef\xbb\xbf{\"method\":\"bom\"}",
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AAAA","mimeType":"image/png","size":12,"annotations":{"audience":["user"]}}}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","size":-1e2}}}}`,
}

// TestUnmarshalMatchesEncodingJSON holds unmarshal (encoding/json/v2 with
// v1's leniency) to what encoding/json made of the same lines: the same
// values, and an error exactly when encoding/json had one. Real wire
// examples from the acp-go-sdk golden corpus, then hostile lines.
func TestUnmarshalMatchesEncodingJSON(t *testing.T) {
	dir := goldenDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("golden corpus: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		checkSameDecode(t, name, b)
		if strings.HasPrefix(name, "session_update_") {
			// the file is an update's params: as the agent sends it
			line := `{"jsonrpc":"2.0","method":"session/update","params":` + string(b) + `}`
			checkSameDecode(t, name+" in a line", []byte(line))
		}
	}
	for i, s := range unmarshalSeeds {
		checkSameDecode(t, "seed "+string(rune('A'+i)), []byte(s))
	}
}

// FuzzUnmarshalMatchesEncodingJSON: the same, on whatever the fuzzer
// makes of the seeds (go test -fuzz FuzzUnmarshalMatches ./acp/).
func FuzzUnmarshalMatchesEncodingJSON(f *testing.F) {
	for _, s := range unmarshalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkSameDecode(t, "fuzz", b) })
}

// checkSameDecode decodes b as the hot path does — the envelope, then as a
// session/update's params — with encoding/json and with unmarshal.
func checkSameDecode(t *testing.T, name string, b []byte) {
	t.Helper()
	var m1, m2 wireMessage
	e1, e2 := json.Unmarshal(b, &m1), unmarshal(b, &m2)
	sameResult(t, name+" (envelope)", e1, e2, m1, m2)
	params := b
	if e1 == nil && m1.Params != nil {
		params = m1.Params
	}
	var n1, n2 SessionNotification
	e1, e2 = json.Unmarshal(params, &n1), unmarshal(params, &n2)
	sameResult(t, name+" (session/update)", e1, e2, n1, n2)
}

func sameResult(t *testing.T, name string, e1, e2 error, v1, v2 any) {
	t.Helper()
	if (e1 == nil) != (e2 == nil) {
		t.Errorf("%s: encoding/json error %v, unmarshal error %v", name, e1, e2)
		return
	}
	if e1 != nil {
		return // both refused it: what was decoded before the error is not used
	}
	if n1, ok := v1.(SessionNotification); ok {
		n2 := v2.(SessionNotification)
		// ParseErr texts differ between the decoders; that there is one
		// must not.
		if (n1.Update.ParseErr == nil) != (n2.Update.ParseErr == nil) {
			t.Errorf("%s: parse error %v against %v", name, n1.Update.ParseErr, n2.Update.ParseErr)
		}
		n1.Update.ParseErr, n2.Update.ParseErr = nil, nil
		v1, v2 = n1, n2
	}
	if !reflect.DeepEqual(v1, v2) {
		t.Errorf("%s: encoding/json decoded\n%#v\nunmarshal decoded\n%#v", name, v1, v2)
	}
}
