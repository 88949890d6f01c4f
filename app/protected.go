package app

import (
	"os"
	"path/filepath"

	"github.com/switchboard-hub/switchboard/app/datadir"
)

// protectedPaths are the paths the engine never serves an agent, whatever
// anyone approves (engine.Options.Protected): the data dir and what it
// holds (the token, hub.json, the database and its -wal and -shm files,
// named too in case one is a link elsewhere), and the config file and its
// folder, both as given and, when the file is a link, its target and the
// target's folder.
func protectedPaths(dataDir, configPath string) []string {
	var out []string
	if d, err := filepath.Abs(dataDir); err == nil {
		db := filepath.Join(d, datadir.DatabaseFile)
		out = append(out, d, filepath.Join(d, datadir.TokenFile), filepath.Join(d, datadir.DiscoveryFile), db, db+"-wal", db+"-shm")
	}
	if c, err := filepath.Abs(configPath); err == nil {
		out = append(out, c, filepath.Dir(c))
		if t, err := filepath.EvalSymlinks(c); err == nil && t != c {
			out = append(out, t, filepath.Dir(t))
		}
	}
	return out
}

// configFolderIsHome reports whether the config file sits directly in the
// user's home folder, which protecting its folder would put out of every
// agent's reach.
func configFolderIsHome(configPath string) bool {
	home, err := os.UserHomeDir()
	return err == nil && filepath.Clean(home) == filepath.Dir(configPath)
}
