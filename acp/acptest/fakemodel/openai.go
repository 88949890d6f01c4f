package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// writeOpenAI answers a chat-completions request with reply.
func writeOpenAI(w http.ResponseWriter, rec *Recorded, reply Reply, n int) {
	id := fmt.Sprintf("chatcmpl-fake%d", rec.Seq)
	created := time.Now().Unix()
	model := rec.Model
	if model == "" {
		model = ModelID
	}
	finish := "stop"
	if len(reply.calls) > 0 {
		finish = "tool_calls"
	}
	promptTokens := tokens(rec.Body)
	completionTokens := len(reply.text)/4 + 1
	usage := map[string]any{
		"prompt_tokens": promptTokens, "completion_tokens": completionTokens,
		"total_tokens": promptTokens + completionTokens,
	}
	callID := func(i int) string { return fmt.Sprintf("call_fake%d_%d", rec.Seq, i) }

	if !rec.Stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if reply.text != "" {
			msg["content"] = reply.text
		}
		if len(reply.calls) > 0 {
			var calls []any
			for i, c := range reply.calls {
				calls = append(calls, map[string]any{
					"id": callID(i), "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Args},
				})
			}
			msg["tool_calls"] = calls
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}

	var opts struct {
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	_ = json.Unmarshal(rec.Body, &opts)

	e := startSSE(w)
	chunk := func(delta map[string]any, finish any) {
		e.event("", map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, part := range chunks(reply.text, n) {
		chunk(map[string]any{"content": part}, nil)
	}
	for i, c := range reply.calls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": callID(i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil)
		for _, part := range chunks(c.Args, n) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": part},
			}}}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	if opts.StreamOptions.IncludeUsage {
		e.event("", map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{}, "usage": usage,
		})
	}
	e.event("", "[DONE]")
}
