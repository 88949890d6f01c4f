package schema

import (
	"encoding/json"
	"strings"
)

// deviation is a message a peer other than Switchboard sends that the
// schema does not allow, known and tolerated: a real agent's own habit, or
// a fake agent script that sends it on purpose to test that the client
// copes. Only received messages may match one: what Switchboard sends
// always validates.
type deviation struct {
	who, why string
	match    func(m message) bool
}

var deviations = []deviation{
	{"qwen-code 0.24", "sends its own notifications (qwen/notify/…) without the \"_\" extension methods must start with",
		func(m message) bool { return strings.HasPrefix(m.Method, "qwen/") }},
	{"qwen-code 0.24", "asks craft/drainMidTurnQueue without the \"_\" prefix (the client answers method-not-found)",
		func(m message) bool { return strings.HasPrefix(m.Method, "craft/") }},
	{"fake agent", "a script sends a notification without the \"_\" prefix, to check the client ignores it",
		func(m message) bool { return m.Method == "fakeagent/notice" }},
	{"fake agent", "a script sends an update kind from a later version, to check the client tolerates it",
		func(m message) bool { return m.Method == "session/update" && updateKind(m.Params) == "future_kind_xyz" }},
}

// deviationOf is the known deviation m is, nil when none.
func deviationOf(m message) *deviation {
	for i := range deviations {
		if deviations[i].match(m) {
			return &deviations[i]
		}
	}
	return nil
}

func updateKind(params json.RawMessage) string {
	var p struct {
		Update struct {
			Kind string `json:"sessionUpdate"`
		} `json:"update"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Update.Kind
}
