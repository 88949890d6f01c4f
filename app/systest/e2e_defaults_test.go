//go:build linux

package systest

import (
	"strings"
	"testing"
	"time"
)

// TestE2EDefaults drives the per-agent session defaults (issue 29,
// agents.<id>.defaults; ADR 0032) through the real `switchboard serve`
// and the fake agent started in an auto-approve mode ("yolo", as Qwen
// Code's "auto"): the defaults reach the session before the first prompt,
// the user's choice on the thread beats them, a default the agent does
// not offer refuses the prompt, a config edit applies live, and POST
// /v1/threads/{id}/session opens the session at once.
func TestE2EDefaults(t *testing.T) {
	bins := buildE2E(t)
	tests := []struct {
		name string
		run  func(*testing.T, e2eBins)
	}{
		{"AppliedBeforeFirstPrompt", e2eDefaultsApplied},
		{"UserChoiceWins", e2eDefaultsUserChoice},
		{"NotOfferedRefused", e2eDefaultsNotOffered},
		{"LiveReload", e2eDefaultsLive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, bins)
		})
	}
}

// yoloAgent is the fake agent starting its sessions in "yolo" (modes yolo,
// default, plan; options model fake-small|fake-large), with defaults d
// (nil: none) as agents.yolo.
func yoloAgent(t *testing.T, d map[string]any) hubConfig {
	c := fakeAgentConf(t, "FAKEAGENT_MODES=yolo,default,plan")
	entry := map[string]any{"name": "Yolo", "command": c.Command, "args": c.Args, "env": c.Env}
	if d != nil {
		entry["defaults"] = d
	}
	return hubConfig{"agents": map[string]any{"yolo": entry}}
}

// stateTurn runs the fake agent's state script on th and returns the
// ended turn: its output is the mode and model the prompt found.
func (h *hubProc) stateTurn(threadID string) apiTurn {
	h.t.Helper()
	tu := h.startTurn(threadID, "state")
	return h.waitTurn(threadID, tu.ID, 30*time.Second)
}

func e2eDefaultsApplied(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, yoloAgent(t, map[string]any{"mode": "default", "options": map[string]string{"model": "fake-large"}}))
	th := h.newThread("yolo", t.TempDir())
	if tu := h.stateTurn(th.ID); tu.Output != "state mode=default model=fake-large" {
		t.Fatalf("the first prompt found %q (%s), want the defaults set before it", tu.Output, tu.Error)
	}
	got := h.sessionThread(th.ID)
	if got.mode() != "default" || got.option("model") != "fake-large" {
		t.Fatalf("thread after the first turn: mode %q model %q", got.mode(), got.option("model"))
	}
	// The agents list says the defaults in force: the config's, and the
	// catalogue's own for Qwen Code (its asking mode).
	var agents struct {
		Agents []struct {
			ID       string
			Defaults *struct {
				Mode    string
				Options map[string]string
			}
		}
	}
	h.call("GET", "/v1/agents", nil, 200, &agents)
	in := map[string]string{}
	for _, a := range agents.Agents {
		if a.Defaults != nil {
			in[a.ID] = a.Defaults.Mode + " " + a.Defaults.Options["model"]
		}
	}
	if in["yolo"] != "default fake-large" || in["qwen"] != "default " {
		t.Fatalf("defaults in the agents list: %v, want yolo's and Qwen Code's built-in mode default", in)
	}
}

func e2eDefaultsUserChoice(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, yoloAgent(t, map[string]any{"mode": "default"}))
	th := h.newThread("yolo", t.TempDir())
	events := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)
	defer events.close()
	var r struct{ Thread apiSessionThread }
	h.call("POST", "/v1/threads/"+th.ID+"/session", nil, 200, &r)
	if r.Thread.mode() != "default" || r.Thread.option("model") != "fake-small" {
		t.Fatalf("session opened at once: modes %s options %s, want the default mode", r.Thread.Modes, r.Thread.ConfigOptions)
	}
	// A window learns the modes on offer from the events, before any prompt.
	if ms := events.until(15*time.Second, isType("config_options")); len(ms) == 0 || !strings.Contains(lastMsg(ms).data, "fake-small") {
		t.Fatalf("no config_options event for the session opened at once: %v", types(ms))
	}
	h.call("POST", "/v1/threads/"+th.ID+"/mode", map[string]string{"modeId": "plan"}, 200, nil)
	if tu := h.stateTurn(th.ID); !strings.HasPrefix(tu.Output, "state mode=plan ") {
		t.Fatalf("the first prompt found %q (%s), want the user's plan over the default", tu.Output, tu.Error)
	}
}

func e2eDefaultsNotOffered(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, yoloAgent(t, map[string]any{"mode": "careful"}))
	th := h.newThread("yolo", t.TempDir())
	events := h.mustSSE("GET", "/v1/threads/"+th.ID+"/events", nil)
	defer events.close()
	tu := h.stateTurn(th.ID)
	if tu.Status != "failed" || tu.Output != "" || !strings.Contains(tu.Error, `agents.yolo.defaults.mode is "careful"`) ||
		!strings.Contains(tu.Error, `"yolo", "default", "plan"`) {
		t.Fatalf("turn %+v: want it failed unprompted, naming the key and the modes the agent offers", tu)
	}
	ms := events.until(15*time.Second, isType("error"))
	if len(ms) == 0 {
		t.Fatal("no error event")
	}
	if d := lastMsg(ms).data; !strings.Contains(d, `"reason":"SESSION_DEFAULTS_NOT_OFFERED"`) || !strings.Contains(d, `"agent":"yolo"`) ||
		!strings.Contains(d, `"key":"agents.yolo.defaults.mode"`) || !strings.Contains(d, `"CONFLICT"`) {
		t.Fatalf("error event %s: want CONFLICT, the reason, the agent and the key", d)
	}
}

func e2eDefaultsLive(t *testing.T, bins e2eBins) {
	h := newHub(t, bins, yoloAgent(t, nil))
	th := h.newThread("yolo", t.TempDir())
	var r struct{ Thread apiSessionThread }
	h.call("POST", "/v1/threads/"+th.ID+"/session", nil, 200, &r)
	if r.Thread.mode() != "yolo" {
		t.Fatalf("without defaults the session is in %q, want the agent's own yolo", r.Thread.mode())
	}
	writeConfig(t, h.dir, yoloAgent(t, map[string]any{"mode": "plan"}))
	mode := func() string {
		var got struct {
			Settings struct {
				Agents []struct {
					ID       string
					Defaults struct{ Mode string }
				}
			}
		}
		h.call("GET", "/v1/settings", nil, 200, &got)
		for _, a := range got.Settings.Agents {
			if a.ID == "yolo" {
				return a.Defaults.Mode
			}
		}
		return ""
	}
	if !waitFor(15*time.Second, func() bool { return mode() == "plan" }) {
		t.Fatalf("settings show defaults.mode %q 15s after the edit, want plan", mode())
	}
	// The live session (opened before the edit) gets the new default
	// before the first prompt.
	if tu := h.stateTurn(th.ID); !strings.HasPrefix(tu.Output, "state mode=plan ") {
		t.Fatalf("the first prompt after the edit found %q (%s), want plan", tu.Output, tu.Error)
	}
}
