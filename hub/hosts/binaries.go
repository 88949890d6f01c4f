package hosts

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// HeadlessName is the file name of the build installed on hosts for
// goos/goarch, as the package and the tarball ship it
// (build/linux/package.sh): switchboard-headless-linux-arm64.
func HeadlessName(goos, goarch string) string {
	return "switchboard-headless-" + goos + "-" + goarch
}

// Binaries is SSHOptions.Headless over the folders given, in order (the
// running program's own folder, say): the first HeadlessName file there
// that is an ELF executable for goarch; and, for this machine's own
// platform, a switchboard-headless beside it, or the running program when
// it is switchboard-headless. A file for another machine is refused (its
// ELF header says so).
func Binaries(self string, dirs ...string) func(goos, goarch string) (string, error) {
	return func(goos, goarch string) (string, error) {
		var cands []string
		for _, d := range dirs {
			if d != "" {
				cands = append(cands, filepath.Join(d, HeadlessName(goos, goarch)))
			}
		}
		if goos == runtime.GOOS && goarch == runtime.GOARCH {
			for _, d := range dirs {
				if d != "" {
					cands = append(cands, filepath.Join(d, "switchboard-headless"))
				}
			}
			if strings.HasPrefix(filepath.Base(self), "switchboard-headless") {
				cands = append(cands, self)
			}
		}
		var why []string
		for _, c := range cands {
			if _, err := os.Stat(c); err != nil {
				continue
			}
			if err := CheckELF(c, goos, goarch); err != nil {
				why = append(why, err.Error())
				continue
			}
			return c, nil
		}
		if len(why) > 0 {
			return "", fmt.Errorf("%s", strings.Join(why, "; "))
		}
		return "", fmt.Errorf("%s is not installed beside Switchboard (looked in %s)", HeadlessName(goos, goarch), strings.Join(dirs, ", "))
	}
}

// CheckELF checks that path is a Linux ELF executable for goarch.
func CheckELF(path, goos, goarch string) error {
	if goos != "linux" {
		return fmt.Errorf("%s: hosts run Linux", path)
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s: not an ELF program: %v", path, err)
	}
	defer f.Close()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
	if want == 0 || f.Machine != want || f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("%s is a %v %v program, not linux/%s", path, f.Machine, f.Type, goarch)
	}
	return nil
}
