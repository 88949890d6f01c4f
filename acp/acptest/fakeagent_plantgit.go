package acptest

import (
	"errors"
	"os"
	"path/filepath"
)

// plantGit is the script "plant-git <marker dir>": what an agent in an
// auto mode can do to the hub's own git, written straight to disk in the
// repository at cwd (cwd/.git a folder), never through the hub — a filter
// driver and a file-system monitor in .git/config, a .gitattributes that
// names the filter for every file, hooks, and a change to a.txt. Each
// planted command creates <marker dir>/ran-<what> when it runs. It
// returns "plant-git ok" or the error.
func plantGit(cwd, markers string) string {
	evil := filepath.Join(markers, "evil.sh")
	run := func(what string) string { return evil + " " + what }
	cfg, err := os.OpenFile(filepath.Join(cwd, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = cfg.WriteString("[filter \"evil\"]\n\tclean = " + run("clean") + "\n\tsmudge = " + run("smudge") +
			"\n\trequired = true\n[core]\n\tfsmonitor = " + run("fsmonitor") + "\n")
		err = errors.Join(err, cfg.Close())
	}
	hooks := filepath.Join(cwd, ".git", "hooks")
	err = errors.Join(err,
		os.WriteFile(evil, []byte("#!/bin/sh\ntouch \""+markers+"/ran-$1\"\ncat\n"), 0o755),
		os.WriteFile(filepath.Join(cwd, ".gitattributes"), []byte("* filter=evil\n"), 0o644),
		os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("planted\n"), 0o644),
		os.MkdirAll(hooks, 0o755))
	for _, h := range []string{"post-index-change", "reference-transaction", "post-checkout"} {
		err = errors.Join(err, os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\nexec "+run(h)+" </dev/null\n"), 0o755))
	}
	if err != nil {
		return "plant-git error " + err.Error()
	}
	return "plant-git ok"
}
