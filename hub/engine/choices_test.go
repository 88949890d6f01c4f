package engine

import (
	"encoding/json"
	"testing"
)

// The user's config option values as restoreChoices reads them: flat and
// grouped select options; values that are not strings are not choices.
func TestConfigChoices(t *testing.T) {
	raw := json.RawMessage(`[
	 {"id":"model","type":"select","currentValue":"b","options":[{"value":"a","name":"A"},{"value":"b","name":"B"}]},
	 {"id":"mode","type":"select","currentValue":"plan","options":[{"group":"g","name":"G","options":[{"value":"build"},{"value":"plan"}]}]},
	 {"id":"thinking","type":"boolean","currentValue":true},
	 {"type":"select","currentValue":"x"}
	]`)
	got := configChoices(raw)
	if len(got) != 2 || got[0].ID != "model" || got[0].Value != "b" || !got[0].offers("a") || got[0].offers("c") ||
		got[1].ID != "mode" || got[1].Value != "plan" || !got[1].offers("build") {
		t.Fatalf("choices %+v", got)
	}
	if configChoices(json.RawMessage(`{"not":"a list"}`)) != nil || configChoices(nil) != nil {
		t.Fatal("a malformed or missing list has no choices")
	}
	set := withOptionValue(raw, "mode", "build")
	if c, ok := findOption(set, "mode"); !ok || c.Value != "build" {
		t.Fatalf("withOptionValue: %s", set)
	}
	if !sameChoices(raw, raw) || sameChoices(raw, set) {
		t.Fatal("sameChoices")
	}
}

func TestModeHelpers(t *testing.T) {
	modes := json.RawMessage(`{"currentModeId":"auto","availableModes":[{"id":"auto"},{"id":"default"}]}`)
	if currentMode(modes) != "auto" || !modeOffered(modes, "default") || modeOffered(modes, "plan") {
		t.Fatal("mode helpers")
	}
	if currentMode(nil) != "" || modeOffered(json.RawMessage(`null`), "auto") {
		t.Fatal("no modes")
	}
}
