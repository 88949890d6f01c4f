package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// writeAnthropic answers a messages request with reply.
func writeAnthropic(w http.ResponseWriter, rec *Recorded, reply Reply, n int) {
	id := fmt.Sprintf("msg_fake%d", rec.Seq)
	model := rec.Model
	if model == "" {
		model = ModelID
	}
	stop := "end_turn"
	if len(reply.calls) > 0 {
		stop = "tool_use"
	}
	inTokens, outTokens := tokens(rec.Body), len(reply.text)/4+1
	callID := func(i int) string { return fmt.Sprintf("toolu_fake%d_%d", rec.Seq, i) }

	if !rec.Stream {
		var content []any
		if reply.text != "" {
			content = append(content, map[string]any{"type": "text", "text": reply.text})
		}
		for i, c := range reply.calls {
			content = append(content, map[string]any{
				"type": "tool_use", "id": callID(i), "name": c.Name, "input": json.RawMessage(c.Args),
			})
		}
		if content == nil {
			content = []any{}
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": inTokens, "output_tokens": outTokens},
		})
		return
	}

	e := startSSE(w)
	e.event("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": inTokens, "output_tokens": 1},
		},
	})
	index := 0
	if reply.text != "" {
		e.event("content_block_start", map[string]any{
			"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""},
		})
		for _, part := range chunks(reply.text, n) {
			e.event("content_block_delta", map[string]any{
				"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": part},
			})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	for i, c := range reply.calls {
		e.event("content_block_start", map[string]any{
			"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": callID(i), "name": c.Name, "input": map[string]any{}},
		})
		for _, part := range chunks(c.Args, n) {
			e.event("content_block_delta", map[string]any{
				"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part},
			})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	e.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": outTokens},
	})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}
