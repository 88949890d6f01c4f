package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

// Every write's session state — a config option's value among it — and
// the events that carry it are redacted before the store sees them,
// whatever path made the write; off, nothing changes.
func TestRedactWriteSessionState(t *testing.T) {
	secret := "ghp_" + strings.Repeat("aB3", 12)
	opts := json.RawMessage(`[{"id":"model","currentValue":"` + secret + `","options":[{"value":"` + secret + `","name":"n"}]}]`)
	cmds := json.RawMessage(`[{"name":"x","description":"uses ` + secret + `"}]`)
	mk := func() *hub.Write {
		return &hub.Write{SessionStates: []hub.SessionState{{ThreadID: "th", ConfigOptions: opts, AvailableCommands: cmds, Modes: json.RawMessage(`{"currentModeId":"` + secret + `"}`)}},
			Events: []hub.Event{{Type: hub.EventConfigOptions, Payload: json.RawMessage(`{"configOptions":` + string(opts) + `}`)}, {Type: hub.EventSessionChanged, Payload: json.RawMessage(`{"unrestored":[{"value":"` + secret + `"}]}`)}}}
	}
	e := &Engine{}
	e.redacting.Store(true)
	w := mk()
	e.redactWrite(w)
	all, _ := json.Marshal(w)
	if strings.Contains(string(all), secret) || strings.Count(string(all), "[REDACTED:") < 6 {
		t.Errorf("redacted write %s", all)
	}
	e.redacting.Store(false)
	w = mk()
	e.redactWrite(w)
	if all, _ := json.Marshal(w); strings.Count(string(all), secret) < 6 || strings.Contains(string(all), "[REDACTED:") {
		t.Errorf("redaction off changed the write: %s", all)
	}
}
