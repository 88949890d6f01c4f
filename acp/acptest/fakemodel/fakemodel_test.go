package fakemodel

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// post sends a JSON body and returns the response.
func post(t *testing.T, u, body string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	name string
	data string
}

func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

const openAITools = `"tools":[{"type":"function","function":{"name":"write_file","parameters":{}}}]`
const anthropicTools = `"tools":[{"name":"Write","input_schema":{}}]`

// openAIResult is a streamed chat completion as parseOpenAIStream collects
// it: text, tool calls (arguments joined per index), finish reason, and
// whether [DONE] came.
type openAIResult struct {
	text   string
	calls  map[int]*Call
	ids    map[int]string
	finish string
	done   bool
	usage  bool
}

func parseOpenAIStream(t *testing.T, events []sseEvent) openAIResult {
	t.Helper()
	res := openAIResult{calls: map[int]*Call{}, ids: map[int]string{}}
	for _, e := range events {
		if e.data == "[DONE]" {
			res.done = true
			continue
		}
		if res.done {
			t.Fatalf("event after [DONE]: %s", e.data)
		}
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(e.data), &c); err != nil {
			t.Fatalf("chunk %q: %v", e.data, err)
		}
		if c.Object != "chat.completion.chunk" {
			t.Errorf("object = %q", c.Object)
		}
		if c.Usage != nil {
			res.usage = c.Usage.TotalTokens > 0
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				res.text += *ch.Delta.Content
			}
			for _, tc := range ch.Delta.ToolCalls {
				if res.calls[tc.Index] == nil {
					res.calls[tc.Index] = &Call{}
				}
				res.calls[tc.Index].Name += tc.Function.Name
				res.calls[tc.Index].Args += tc.Function.Arguments
				res.ids[tc.Index] += tc.ID
			}
			if ch.FinishReason != nil {
				res.finish = *ch.FinishReason
			}
		}
	}
	return res
}

func TestOpenAIStreamText(t *testing.T) {
	s := Start(t, Text("Hello, streaming world."))
	resp := post(t, s.URL+"/v1/chat/completions",
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}],`+openAITools+`}`)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type = %q", ct)
	}
	events := readSSE(t, resp.Body)
	res := parseOpenAIStream(t, events)
	if res.text != "Hello, streaming world." || res.finish != "stop" || !res.done || !res.usage {
		t.Fatalf("got %+v", res)
	}
	if len(events) < 5 { // role, ≥2 content deltas, finish, usage, [DONE]
		t.Errorf("only %d events: text not streamed in pieces", len(events))
	}
}

func TestOpenAIStreamToolCall(t *testing.T) {
	args := `{"file_path":"/tmp/x","content":"hi\n"}`
	s := Start(t, ToolCall("write_file", args).And(ToolCall("read_file", `{"file_path":"/tmp/y"}`)).WithText("Let me write."))
	resp := post(t, s.URL+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[],`+openAITools+`}`)
	res := parseOpenAIStream(t, readSSE(t, resp.Body))
	if res.finish != "tool_calls" || res.text != "Let me write." || len(res.calls) != 2 {
		t.Fatalf("got %+v", res)
	}
	if c := res.calls[0]; c.Name != "write_file" || c.Args != args || res.ids[0] != "call_fake0_0" {
		t.Errorf("call 0 = %+v id %q", c, res.ids[0])
	}
	if c := res.calls[1]; c.Name != "read_file" || c.Args != `{"file_path":"/tmp/y"}` || res.ids[1] != "call_fake0_1" {
		t.Errorf("call 1 = %+v id %q", c, res.ids[1])
	}
	if res.usage {
		t.Error("usage chunk sent without stream_options.include_usage")
	}
}

// openAICompletion is a non-streamed chat completion.
type openAICompletion struct {
	Object  string `json:"object"`
	Choices []struct {
		Message struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

func TestOpenAINonStream(t *testing.T) {
	s := Start(t, ToolCall("run_shell_command", `{"command":"ls"}`), Text("All done."))
	var got []openAICompletion
	for range 2 {
		resp := post(t, s.URL+"/v1/chat/completions", `{"model":"m","messages":[],`+openAITools+`}`)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		var c openAICompletion
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	first, second := got[0].Choices[0], got[1].Choices[0]
	if got[0].Object != "chat.completion" || first.FinishReason != "tool_calls" || first.Message.Content != nil ||
		len(first.Message.ToolCalls) != 1 || first.Message.ToolCalls[0].Function.Name != "run_shell_command" ||
		first.Message.ToolCalls[0].Function.Arguments != `{"command":"ls"}` || first.Message.ToolCalls[0].Type != "function" {
		t.Errorf("first = %+v", got[0])
	}
	if second.FinishReason != "stop" || second.Message.Content == nil || *second.Message.Content != "All done." {
		t.Errorf("second = %+v", got[1])
	}
}

// anthropicResult is a streamed message put back together.
type anthropicResult struct {
	types  []string // event names in order
	blocks []map[string]any
	inputs []string // per block: joined input_json_delta
	texts  []string // per block: joined text_delta
	stop   string
}

func parseAnthropicStream(t *testing.T, events []sseEvent) anthropicResult {
	t.Helper()
	var res anthropicResult
	for _, e := range events {
		var ev struct {
			Type         string         `json:"type"`
			Index        int            `json:"index"`
			ContentBlock map[string]any `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(e.data), &ev); err != nil {
			t.Fatalf("event %q: %v", e.data, err)
		}
		if ev.Type != e.name {
			t.Errorf("event name %q carries type %q", e.name, ev.Type)
		}
		res.types = append(res.types, ev.Type)
		switch ev.Type {
		case "content_block_start":
			if ev.Index != len(res.blocks) {
				t.Errorf("block index %d, want %d", ev.Index, len(res.blocks))
			}
			res.blocks = append(res.blocks, ev.ContentBlock)
			res.inputs = append(res.inputs, "")
			res.texts = append(res.texts, "")
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				res.texts[ev.Index] += ev.Delta.Text
			case "input_json_delta":
				res.inputs[ev.Index] += ev.Delta.PartialJSON
			default:
				t.Errorf("delta type %q", ev.Delta.Type)
			}
		case "message_delta":
			res.stop = ev.Delta.StopReason
		}
	}
	return res
}

func TestAnthropicStream(t *testing.T) {
	args := `{"command":"echo hi","description":"Say hi"}`
	s := Start(t, Text("Hello there."), ToolCall("Bash", args).WithText("Running it."))

	res := parseAnthropicStream(t, readSSE(t, post(t, s.URL+"/v1/messages?beta=true",
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],`+anthropicTools+`}`,
		"anthropic-version", "2023-06-01", "x-api-key", "dummy").Body))
	want := "message_start content_block_start content_block_delta content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(res.types, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if len(res.blocks) != 1 || res.blocks[0]["type"] != "text" || res.texts[0] != "Hello there." || res.stop != "end_turn" {
		t.Errorf("text message = %+v", res)
	}

	res = parseAnthropicStream(t, readSSE(t, post(t, s.URL+"/v1/messages",
		`{"model":"m","stream":true,"messages":[],`+anthropicTools+`}`).Body))
	if len(res.blocks) != 2 || res.texts[0] != "Running it." || res.stop != "tool_use" {
		t.Fatalf("tool message = %+v", res)
	}
	if b := res.blocks[1]; b["type"] != "tool_use" || b["name"] != "Bash" || b["id"] != "toolu_fake1_0" || res.inputs[1] != args {
		t.Errorf("tool block = %v, input %q", b, res.inputs[1])
	}
}

func TestAnthropicNonStream(t *testing.T) {
	s := Start(t, ToolCall("Write", `{"file_path":"/tmp/a","content":"x"}`))
	var msg struct {
		Type       string `json:"type"`
		Role       string `json:"role"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type  string          `json:"type"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if err := json.NewDecoder(post(t, s.URL+"/v1/messages", `{"model":"m","messages":[],`+anthropicTools+`}`).Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.Role != "assistant" || msg.StopReason != "tool_use" || len(msg.Content) != 1 ||
		msg.Content[0].Type != "tool_use" || msg.Content[0].Name != "Write" || string(msg.Content[0].Input) != `{"file_path":"/tmp/a","content":"x"}` {
		t.Errorf("message = %+v", msg)
	}
}

func TestSideRequestsDoNotConsumeScript(t *testing.T) {
	s := Start(t, ToolCall("Write", `{}`), Text("after"))
	side := func() string {
		res := parseAnthropicStream(t, readSSE(t, post(t, s.URL+"/v1/messages", `{"model":"m","stream":true,"messages":[]}`).Body))
		return strings.Join(res.texts, "")
	}
	if got := side(); got != "ok" {
		t.Errorf("side answer %q, want ok", got)
	}
	res := parseAnthropicStream(t, readSSE(t, post(t, s.URL+"/v1/messages", `{"model":"m","stream":true,"messages":[],`+anthropicTools+`}`).Body))
	if res.stop != "tool_use" {
		t.Errorf("main request after a side request: stop %q, want the scripted tool call", res.stop)
	}
	s.SetSide(NoTools, Text(`{"title":"T"}`))
	if got := side(); got != `{"title":"T"}` {
		t.Errorf("side answer %q after SetSide", got)
	}
	if s.Remaining() != 1 {
		t.Errorf("Remaining = %d, want 1", s.Remaining())
	}
	reqs := s.ModelRequests(true)
	if len(reqs) != 2 || !reqs[0].Side || reqs[0].Script != -1 || reqs[0].HasTools() {
		t.Errorf("side requests = %+v", reqs)
	}
	if main := s.ModelRequests(false); len(main) != 1 || main[0].Script != 0 || !main[0].HasTool("Write") || main[0].Format != Anthropic {
		t.Errorf("main requests = %+v", main)
	}
}

func TestWhenRoutesByPredicate(t *testing.T) {
	title := func(r *Recorded) bool { return r.Contains("naming a coding session") }
	s := Start(t,
		ToolCall("write_file", `{}`),
		Text(`{"title":"Fake"}`).When(title),
		Text("second"),
	)
	ask := func(body string) openAIResult {
		return parseOpenAIStream(t, readSSE(t, post(t, s.URL+"/v1/chat/completions", body).Body))
	}
	// A side request matching a When entry takes it, even out of order.
	if got := ask(`{"stream":true,"messages":[{"role":"system","content":"You are naming a coding session"}]}`); got.text != `{"title":"Fake"}` {
		t.Errorf("title request got %+v", got)
	}
	if got := ask(`{"stream":true,"messages":[],` + openAITools + `}`); len(got.calls) != 1 {
		t.Errorf("first main request got %+v, want the tool call", got)
	}
	if got := ask(`{"stream":true,"messages":[],` + openAITools + `}`); got.text != "second" {
		t.Errorf("second main request got %+v", got)
	}
	if s.Requests()[0].Script != 1 {
		t.Errorf("title request consumed entry %d, want 1", s.Requests()[0].Script)
	}
}

func TestExhausted(t *testing.T) {
	body := `{"stream":true,"messages":[],` + openAITools + `}`
	ask := func(s *Server) string {
		return parseOpenAIStream(t, readSSE(t, post(t, s.URL+"/v1/chat/completions", body).Body)).text
	}
	s := Start(t, Text("one"))
	if a, b := ask(s), ask(s); a != "one" || b != "done" {
		t.Errorf("default: %q, %q; want one, done", a, b)
	}
	s = Start(t, Text("one"), Text("two"))
	s.RepeatLast()
	if a, b, c := ask(s), ask(s), ask(s); a != "one" || b != "two" || c != "two" {
		t.Errorf("RepeatLast: %q, %q, %q", a, b, c)
	}
	s = Start(t)
	s.SetExhausted(Text("empty"))
	if a := ask(s); a != "empty" {
		t.Errorf("SetExhausted: %q", a)
	}
	s.Push(Text("pushed"))
	if a, b := ask(s), ask(s); a != "pushed" || b != "empty" {
		t.Errorf("Push: %q, %q", a, b)
	}
}

func TestToolResults(t *testing.T) {
	s := Start(t)
	post(t, s.URL+"/v1/chat/completions", `{"messages":[
		{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"x","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"out 1"},
		{"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],`+openAITools+`}`)
	post(t, s.URL+"/v1/messages", `{"messages":[
		{"role":"user","content":"plain"},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"refused","is_error":true},
		                          {"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"fine"}]}]}],`+anthropicTools+`}`)
	reqs := s.Requests()
	got := fmt.Sprint(reqs[0].ToolResults(), reqs[1].ToolResults())
	want := "[{call_1 out 1 false} {call_2 a\nb false}] [{toolu_1 refused true} {toolu_2 fine false}]"
	if got != want {
		t.Errorf("ToolResults:\n got %s\nwant %s", got, want)
	}
}

func TestSideEndpoints(t *testing.T) {
	s := Start(t)
	resp, err := http.Get(s.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var models struct {
		Object string `json:"object"`
		Data   []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&models); err != nil || models.Object != "list" || len(models.Data) != 1 || models.Data[0].ID != ModelID {
		t.Errorf("models = %+v, %v", models, err)
	}
	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(post(t, s.URL+"/v1/messages/count_tokens", `{"messages":[]}`).Body).Decode(&count); err != nil || count.InputTokens < 1 {
		t.Errorf("count_tokens = %+v, %v", count, err)
	}
	if r := post(t, s.URL+"/v1/embeddings", `{}`); r.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: status %d, want 404", r.StatusCode)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Reply != "models" || reqs[1].Reply != "count_tokens" || reqs[2].Reply != "404" || reqs[2].Path != "/v1/embeddings" {
		t.Errorf("recorded %+v", reqs)
	}
	if s.Remaining() != 0 || len(s.ModelRequests(false)) != 0 {
		t.Error("side endpoints counted as model requests")
	}
}

func TestFail(t *testing.T) {
	s := Start(t, Fail(529, "overloaded"))
	r := post(t, s.URL+"/v1/messages", `{"messages":[],`+anthropicTools+`}`)
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 529 || !strings.Contains(string(b), `"overloaded"`) || !strings.Contains(string(b), `"type":"error"`) {
		t.Errorf("status %d body %s", r.StatusCode, b)
	}
}

func TestHangEndsWithClient(t *testing.T) {
	s := Start(t, Hang(), Text("after"))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/chat/completions",
		strings.NewReader(`{"stream":true,"messages":[],`+openAITools+`}`))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	if _, err := s.WaitFor(wctx, func(r []Recorded) bool { return len(r) == 1 }); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		t.Fatalf("hanging request answered: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("request succeeded after cancel")
	}
	// The server is still usable and the script moved on.
	if got := parseOpenAIStream(t, readSSE(t, post(t, s.URL+"/v1/chat/completions", `{"stream":true,"messages":[],`+openAITools+`}`).Body)); got.text != "after" {
		t.Errorf("next answer %+v", got)
	}
}

// TestHangReleasedAtCleanup checks that a request still hanging when the
// test ends does not block the server's Close.
func TestHangReleasedAtCleanup(t *testing.T) {
	var wg sync.WaitGroup
	t.Run("inner", func(t *testing.T) {
		s := Start(t, Hang())
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"messages":[],`+openAITools+`}`))
			if err == nil {
				resp.Body.Close()
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := s.WaitFor(ctx, func(r []Recorded) bool { return len(r) == 1 }); err != nil {
			t.Fatal(err)
		}
	})
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("hanging request not released by cleanup")
	}
}

func TestLoopbackOnly(t *testing.T) {
	s := Start(t)
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if u.Hostname() != "127.0.0.1" {
		t.Errorf("listening on %s, want 127.0.0.1", u.Host)
	}
}

func TestToolCallArgsValidated(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Start accepted a ToolCall whose arguments are not a JSON object")
		}
	}()
	Start(t, ToolCall("x", `{not json`))
}

func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		s string
		n int
	}{{"", 3}, {"a", 3}, {"héllo wörld", 3}, {"abcdef", 1}, {"abcdef", 10}} {
		parts := chunks(tc.s, tc.n)
		if strings.Join(parts, "") != tc.s || len(parts) > max(tc.n, 1) {
			t.Errorf("chunks(%q, %d) = %q", tc.s, tc.n, parts)
		}
	}
}
