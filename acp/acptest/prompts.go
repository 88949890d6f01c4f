package acptest

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"testing"
)

// PromptTexts reads the file the fake agent records its session/prompt
// requests in (FAKEAGENT_PROMPTS): every text block of each prompt, in
// the order received. No file yet is no prompt.
func PromptTexts(tb testing.TB, file string) [][]string {
	tb.Helper()
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Params struct {
				Prompt []struct{ Type, Text string } `json:"prompt"`
			} `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		var texts []string
		for _, b := range line.Params.Prompt {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
		out = append(out, texts)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return out
}
