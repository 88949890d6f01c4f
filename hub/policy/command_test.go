package policy

import (
	"slices"
	"testing"
)

func TestParseCommand(t *testing.T) {
	plain := map[string][]string{
		"go test ./...":              {"go", "test", "./..."},
		"  npm   test  ":             {"npm", "test"},
		`git commit -m "a b"`:        {"git", "commit", "-m", "a b"},
		`echo 'a;b' "c|d" e\ f`:      {"echo", "a;b", "c|d", "e f"},
		`printf "%s\n" "q\"x\$y"`:    {"printf", `%s\n`, `q"x$y`},
		`ls a=b`:                     {"ls", "a=b"},
		`go test -run 'TestX$' ./p/`: {"go", "test", "-run", "TestX$", "./p/"},
		`ls ""`:                      {"ls", ""},
	}
	for line, want := range plain {
		argv, ok := ParseCommand(line)
		if !ok || !slices.Equal(argv, want) {
			t.Errorf("ParseCommand(%q) = %q, %v; want %q, plain", line, argv, ok, want)
		}
		if back, ok := ParseCommand(QuoteArgv(argv)); !ok || !slices.Equal(back, argv) {
			t.Errorf("QuoteArgv(%q) = %q reads back as %q, %v", argv, QuoteArgv(argv), back, ok)
		}
	}
	shell := []string{
		"go test ; touch X", "go test;touch X", "go test & touch X", "go test && touch X",
		"go test | tee x", "go test || x", "echo `id`", "echo $(id)", "echo $HOME", "echo ${HOME}",
		"cat < /etc/passwd", "echo x > f", "echo x >> f", "go test\ntouch X", "go test\rtouch X",
		"rm *", "rm ?", "rm [ab]", "echo {a,b}", "cd ~", "~/bin/x", "FOO=1 go test", "! go test",
		"go test # comment", "(touch X)", "{ touch X; }", "if true; then touch X; fi", "echo $'\\x41'",
		`echo "$(id)"`, `echo "$HOME"`, "diff <(ls) <(ls)", "go test 2>&1", "", "   ", "x\x00y",
		"echo !!", "coproc x", "go test &",
	}
	for _, line := range shell {
		if argv, ok := ParseCommand(line); ok {
			t.Errorf("ParseCommand(%q) = %q, plain; want shell syntax", line, argv)
		}
	}
}
