package redact

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fake secrets of each format, built so that this file holds none whole.
var (
	ghp      = "ghp_" + strings.Repeat("aB3", 12)
	ghs      = "ghs_" + strings.Repeat("Zz9", 12)
	ghPAT    = "github_pat_" + strings.Repeat("11ABCDEFG", 4)
	anth     = "sk-ant-api03-" + strings.Repeat("xY_-1", 10)
	openai   = "sk-" + strings.Repeat("Ab1", 16)
	proj     = "sk-proj-" + strings.Repeat("Ab1_", 20)
	akia     = "AKIA" + "IOSFODNN7EXAMPLE"
	asia     = "ASIA" + "Q3EGQEXAMPLE1234"
	awsVal   = strings.Repeat("wJalrXUtnFEMI/K7MDENG+bPxRfiCY", 2)[:40]
	slack    = "xoxb-" + "1234567890-abcdefghij"
	google   = "AIza" + strings.Repeat("Sy0_-", 7)
	pemBody  = strings.Repeat("MIIEowIBAAKCAQEA7bq98K2nUQ/xyz+abc=\n", 40)
	pemBlock = "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "-----END RSA PRIVATE KEY-----"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"clean", "nothing to see here, sk- and ghp_ short", "nothing to see here, sk- and ghp_ short"},
		{"github", "token " + ghp + " ok", "token [REDACTED:github-token] ok"},
		{"github server", ghs, "[REDACTED:github-token]"},
		{"github pat", "x=" + ghPAT, "x=[REDACTED:github-token]"},
		{"anthropic", "ANTHROPIC_API_KEY=" + anth + "\n", "ANTHROPIC_API_KEY=[REDACTED:anthropic-key]\n"},
		{"openai", "key: " + openai, "key: [REDACTED:openai-key]"},
		{"openai project", proj + ".", "[REDACTED:openai-key]."},
		{"aws id", "id " + akia + " and " + asia, "id [REDACTED:aws-access-key-id] and [REDACTED:aws-access-key-id]"},
		{"aws secret line", "aws_secret_access_key = " + awsVal + "\n", "aws_secret_access_key = [REDACTED:aws-secret-key]\n"},
		{"aws secret env", `AWS_SECRET_ACCESS_KEY="` + awsVal + `"`, `AWS_SECRET_ACCESS_KEY="[REDACTED:aws-secret-key]"`},
		{"slack", "slack " + slack, "slack [REDACTED:slack-token]"},
		{"google", google, "[REDACTED:google-api-key]"},
		{"private key", "before\n" + pemBlock + "\nafter", "before\n[REDACTED:private-key]\nafter"},
		{"openssh key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----", "[REDACTED:private-key]"},
		{"unterminated key", "x -----BEGIN PRIVATE KEY-----\nMIIE", "x [REDACTED:private-key]"},
		{"public key kept", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"},
		{"inside a word", "task-" + strings.Repeat("a", 40), "task-" + strings.Repeat("a", 40)},
		{"two", ghp + " " + ghp, "[REDACTED:github-token] [REDACTED:github-token]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := String(tc.in)
			if got != tc.want || changed != (tc.in != tc.want) {
				t.Errorf("String(%q) = %q, %v; want %q", tc.in, got, changed, tc.want)
			}
			again, _ := String(got)
			if again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"clean kept as is", `{"b": 1, "a": ["x" , "y"]}`, `{"b": 1, "a": ["x" , "y"]}`},
		{"value", `{"command":"curl -H 'Authorization: token ` + ghp + `'","n":2}`, `{"command":"curl -H 'Authorization: token [REDACTED:github-token]'","n":2}`},
		{"escaped value", `{"env":"AWS_ACCESS_KEY_ID=` + akia + `\nX=\"1\""}`, `{"env":"AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key-id]\nX=\"1\""}`},
		{"key block with escapes", `{"content":` + mustJSON(pemBlock+"\n") + `}`, `{"content":"[REDACTED:private-key]\n"}`},
		{"nested", `[{"a":{"b":["` + slack + `"]}}]`, `[{"a":{"b":["[REDACTED:slack-token]"]}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := JSON([]byte(tc.in))
			if string(got) != tc.want || changed != (tc.in != tc.want) {
				t.Errorf("JSON(%s)\n = %s, %v\nwant %s", tc.in, got, changed, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON: %s", got)
			}
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A secret split anywhere across chunks is released redacted, nothing is
// lost, and at most HoldBack bytes are held.
func TestStreamSplits(t *testing.T) {
	texts := []string{
		"Here is the token: " + ghp + " — keep it safe.",
		"export OPENAI_API_KEY=" + proj + "\nexport AWS_SECRET_ACCESS_KEY=" + awsVal + "\ndone",
		"key:\n" + pemBlock + "\nthat was the key, and " + akia + " the id",
		"plain prose without any secret at all, just words and numbers 12345",
		strings.Repeat("héllo wörld ✓ ", 60) + ghp,
		strings.Repeat("ééé", 200),
		strings.Repeat("x", 700) + " " + anth + " " + strings.Repeat("y", 300),
	}
	for ti, text := range texts {
		want, _ := String(text)
		for _, size := range []int{1, 2, 3, 7, 16, 64, 255, 256, 1000} {
			var s Stream
			var got strings.Builder
			for i := 0; i < len(text); i += size {
				chunk := text[i:min(i+size, len(text))]
				out := s.Write(chunk)
				if !utf8.ValidString(out) && utf8.ValidString(chunk) {
					t.Fatalf("text %d in chunks of %d: a character was split: %q", ti, size, out)
				}
				got.WriteString(out)
				if s.Pending() > HoldBack && !s.inKey {
					t.Fatalf("text %d size %d: %d bytes held", ti, size, s.Pending())
				}
			}
			got.WriteString(s.Close())

			if got.String() != want {
				t.Errorf("text %d in chunks of %d:\n got %q\nwant %q", ti, size, got.String(), want)
			}
		}
		// Every split into two chunks.
		for cut := 0; cut <= len(text); cut++ {
			var s Stream
			got := s.Write(text[:cut]) + s.Write(text[cut:]) + s.Close()
			if got != want {
				t.Fatalf("text %d split at %d:\n got %q\nwant %q", ti, cut, got, want)
			}
		}
	}
}

// Prose is released as it comes, but for its last word.
func TestStreamReleasesEarly(t *testing.T) {
	var s Stream
	if got := s.Write("Hello there, how are you"); got != "Hello there, how are " {
		t.Errorf("released %q", got)
	}
	if got := s.Write(" today?\n"); got != "you today?\n" {
		t.Errorf("released %q", got)
	}
	if s.Pending() != 0 {
		t.Errorf("%d held", s.Pending())
	}
	// A line that mentions AWS is held only while it may still become a
	// secret-key line.
	if got := s.Write("We deploy on AWS and GCP, "); got != "We deploy on AWS and GCP, " {
		t.Errorf("released %q", got)
	}
	if got := s.Write("export AWS_SECRET_ACCESS_KEY="); got != "export " {
		t.Errorf("released %q", got)
	}
	s.Close()
	// After Close, a Write releases at once.
	s.Close()
	if got := s.Write("late " + ghp[:10]); got != "late "+ghp[:10] {
		t.Errorf("after Close: %q", got)
	}
}

func TestStreamHoldsAtMostHoldBack(t *testing.T) {
	var s Stream
	long := strings.Repeat("a", 1000)
	out := s.Write(long)
	if s.Pending() != HoldBack || len(out) != 1000-HoldBack {
		t.Errorf("released %d, held %d", len(out), s.Pending())
	}
	if out+s.Close() != long {
		t.Error("text lost")
	}
}

func TestHandler(t *testing.T) {
	on := true
	var b strings.Builder
	log := slog.New(Handler(slog.NewTextHandler(&b, nil), func() bool { return on }))
	log = log.With("token", ghp)
	log.Info("agent said "+slack, "err", errors.New("auth failed for "+akia), "g", slog.Group("x", "k", anth), "n", 3)
	for _, s := range []string{ghp, slack, akia, anth} {
		if strings.Contains(b.String(), s) {
			t.Errorf("log holds %q: %s", s, b.String())
		}
	}
	if !strings.Contains(b.String(), "[REDACTED:slack-token]") || !strings.Contains(b.String(), "n=3") {
		t.Errorf("log: %s", b.String())
	}
	b.Reset()
	on = false
	log.Info("agent said " + slack)
	if !strings.Contains(b.String(), slack) {
		t.Errorf("redaction off, log: %s", b.String())
	}
}
