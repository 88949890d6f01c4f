package fakemodel

import "encoding/json"

// Reply is one scripted model answer. Build it with Text, ToolCall, Hang or
// Fail, optionally refined with When, WithText or And. Reply values are
// immutable: the refining methods return a copy.
type Reply struct {
	text   string
	calls  []Call
	hang   bool
	status int // Fail: HTTP status; 0 otherwise
	errMsg string
	match  func(*Recorded) bool
}

// Call is one tool call inside a Reply.
type Call struct {
	Name string
	// Args is the JSON object of arguments, exactly as the model "wrote" it.
	Args string
}

// Text answers with assistant text (streamed in a few chunks when the request
// asks for streaming), finishing with stop / end_turn.
func Text(s string) Reply { return Reply{text: s} }

// ToolCall answers with one call of the tool name with the JSON object
// argsJSON, finishing with tool_calls / tool_use. argsJSON must be valid
// JSON ("" means "{}"); Start panics otherwise.
func ToolCall(name, argsJSON string) Reply {
	if argsJSON == "" {
		argsJSON = "{}"
	}
	return Reply{calls: []Call{{Name: name, Args: argsJSON}}}
}

// Hang answers nothing: the request stays open until the client goes away
// or the server is closed. It models a model that never responds (the
// agent's turn then only ends by session/cancel or a kill).
func Hang() Reply { return Reply{hang: true} }

// Fail answers with an HTTP error in the requested format's error shape.
func Fail(status int, message string) Reply { return Reply{status: status, errMsg: message} }

// WithText returns r with assistant text s placed before its tool calls.
func (r Reply) WithText(s string) Reply {
	r.text = s
	return r
}

// And returns r with the tool calls (and, if r has none, the text) of other
// appended, for parallel tool calls in one answer.
func (r Reply) And(other Reply) Reply {
	r.calls = append(append([]Call(nil), r.calls...), other.calls...)
	if r.text == "" {
		r.text = other.text
	}
	return r
}

// When returns r restricted to requests for which pred is true. A request
// consumes the first not-yet-used script entry whose predicate matches (an
// entry without a predicate matches everything); entries skipped over stay
// in the script for later requests.
func (r Reply) When(pred func(*Recorded) bool) Reply {
	r.match = pred
	return r
}

// Calls returns the tool calls of r.
func (r Reply) Calls() []Call { return append([]Call(nil), r.calls...) }

// String describes r for logs.
func (r Reply) String() string {
	switch {
	case r.hang:
		return "Hang()"
	case r.status != 0:
		return "Fail(" + r.errMsg + ")"
	}
	s := ""
	if r.text != "" {
		s = "Text(" + shorten(r.text) + ")"
	}
	for _, c := range r.calls {
		if s != "" {
			s += "+"
		}
		s += "ToolCall(" + c.Name + ", " + shorten(c.Args) + ")"
	}
	if s == "" {
		s = "Text()"
	}
	return s
}

func (r Reply) matches(rec *Recorded) bool { return r.match == nil || r.match(rec) }

func (r Reply) validate() {
	for _, c := range r.calls {
		var v map[string]any
		if err := json.Unmarshal([]byte(c.Args), &v); err != nil {
			panic("fakemodel: ToolCall(" + c.Name + "): arguments are not a JSON object: " + err.Error())
		}
	}
}

// chunks splits s into a few pieces so that streaming clients see several
// deltas; joining the pieces gives back s.
func chunks(s string, n int) []string {
	if s == "" {
		return nil
	}
	rs := []rune(s)
	if n < 1 {
		n = 1
	}
	size := (len(rs) + n - 1) / n
	var out []string
	for i := 0; i < len(rs); i += size {
		out = append(out, string(rs[i:min(i+size, len(rs))]))
	}
	return out
}

func shorten(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
