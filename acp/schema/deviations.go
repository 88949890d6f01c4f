package schema

import (
	"encoding/json"
	"strings"
)

// deviation is a message the schema does not allow, known and
// tolerated: a real agent's own habit, or a fake agent script that sends
// it on purpose to test that the client copes (received: sent false). What
// Switchboard sends always validates, but for one deliberate pass-through
// (sent true): the editor bridge gives an editor an update kind the hub
// does not know exactly as the agent sent it, for an editor newer than
// the hub.
type deviation struct {
	who, why string
	sent     bool
	match    func(m message) bool
}

var deviations = []deviation{
	{"qwen-code 0.24", "sends its own notifications (qwen/notify/…) without the \"_\" extension methods must start with",
		false, func(m message) bool { return strings.HasPrefix(m.Method, "qwen/") }},
	{"qwen-code 0.24", "asks craft/drainMidTurnQueue without the \"_\" prefix (the client answers method-not-found)",
		false, func(m message) bool { return strings.HasPrefix(m.Method, "craft/") }},
	{"fake agent", "a script sends a notification without the \"_\" prefix, to check the client ignores it",
		false, func(m message) bool { return m.Method == "fakeagent/notice" }},
	{"fake agent", "a script sends an update kind from a later version, to check the client tolerates it",
		false, func(m message) bool { return m.Method == "session/update" && updateKind(m.Params) == "future_kind_xyz" }},
	{"fake agent", "a script reports usage out of range (negative, past int64), to check the ledger keeps only finite figures",
		false, func(m message) bool {
			return m.Method == "session/update" && updateKind(m.Params) == "usage_update" && negativeUsage(m.Params)
		}},
	{"switchboard acp", "passes an update kind the hub does not know to the editor as the agent sent it (app/editorbridge, TestE2EBridge)",
		true, func(m message) bool {
			k := updateKind(m.Params)
			return m.Method == "session/update" && k != "" && !stable.hasUpdateKind(k) && !unstable.hasUpdateKind(k)
		}},
}

// negativeUsage reports whether a usage_update's used or size is below 0.
func negativeUsage(params json.RawMessage) bool {
	var p struct {
		Update struct {
			Used, Size float64
		} `json:"update"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Update.Used < 0 || p.Update.Size < 0
}

// deviationOf is the known deviation m is, sent by us or received, nil
// when none.
func deviationOf(m message, sent bool) *deviation {
	load()
	for i := range deviations {
		if deviations[i].sent == sent && deviations[i].match(m) {
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
