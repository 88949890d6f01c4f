package hosts

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Host keys. The link never passes StrictHostKeyChecking=no: the user's
// known_hosts decide. An unknown key makes the host needs_attention with
// the key's fingerprint (read from ssh's own -v line "Server host key:",
// on a connection that stops at the check, before any authentication);
// the user trusts that fingerprint, and one connection with
// StrictHostKeyChecking=accept-new records the key in a file of the
// link's folder, from which it is copied to the user's known_hosts only
// if its fingerprint is the one the user trusted. A changed key is
// refused with ssh's own message and cannot be trusted from the app (a
// trust asked for a host whose known key differs is refused: checked
// with the user's known_hosts first).

var (
	changedKey = regexp.MustCompile(`REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed`)
	unknownKey = regexp.MustCompile(`host key is known for|Host key verification failed`)
	serverKey  = regexp.MustCompile(`Server host key: (\S+) (SHA256:[A-Za-z0-9+/=]+)`)
)

// sshFailure turns the stderr of a master that exited into the error to
// show: a host key problem needs attention, anything else is
// unreachable (retried).
func (l *sshLink) sshFailure(stderr string) error {
	msg := sshMessage(stderr)
	switch {
	case changedKey.MatchString(stderr):
		return &attention{msg: msg}
	case unknownKey.MatchString(stderr):
		fp, err := l.probeKey()
		if err != nil {
			return &attention{msg: msg + " (its fingerprint could not be read: " + err.Error() + ")"}
		}
		return &attention{msg: "the host's key is not known: check its fingerprint " + fp + " and trust it", fingerprint: fp}
	case strings.Contains(stderr, "Permission denied"):
		return &attention{msg: msg}
	}
	return fmt.Errorf("%s", msg)
}

// sshMessage is ssh's stderr without its debug lines and the
// changed-key banner's art, on one line.
func sshMessage(stderr string) string {
	var lines []string
	for _, ln := range strings.Split(strings.ReplaceAll(stderr, "\r", ""), "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" || strings.HasPrefix(ln, "debug") || strings.Trim(ln, "@ ") == "" {
			continue
		}
		lines = append(lines, strings.Trim(ln, "@ "))
	}
	if len(lines) == 0 {
		return "ssh exited"
	}
	return strings.Join(lines, " ")
}

// probeKey connects with no known hosts and strict checking, so ssh
// stops at the key (no authentication), and reads the key's fingerprint
// from its -v output.
func (l *sshLink) probeKey() (string, error) {
	ctx, cancel := context.WithTimeout(l.ctx, 20*time.Second)
	defer cancel()
	args := l.sshArgs([]string{"-v", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "GlobalKnownHostsFile=/dev/null", "-o", "ControlPath=none", "-o", "ConnectTimeout=15"}, "exit")
	out, _ := exec.CommandContext(ctx, l.o.Program, args...).CombinedOutput()
	m := serverKey.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s", sshMessage(string(out)))
	}
	return string(m[2]), nil
}

// trust records the host's key in the user's known_hosts if its
// fingerprint is fp (see above).
func (l *sshLink) trust(fp string) error {
	ctx, cancel := context.WithTimeout(l.ctx, 30*time.Second)
	defer cancel()
	// A key the user's known_hosts hold another key for is a changed
	// key: never overridden from here.
	check := l.sshArgs([]string{"-o", "StrictHostKeyChecking=yes", "-o", "ControlPath=none", "-o", "ConnectTimeout=15"}, "exit")
	if out, _ := exec.CommandContext(ctx, l.o.Program, check...).CombinedOutput(); changedKey.Match(out) {
		return &attention{msg: sshMessage(string(out))}
	}
	tmp := filepath.Join(l.dir, "trust_known_hosts")
	os.Remove(tmp)
	defer os.Remove(tmp)
	args := l.sshArgs([]string{"-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile=" + tmp,
		"-o", "GlobalKnownHostsFile=/dev/null", "-o", "ControlPath=none", "-o", "ConnectTimeout=15"}, "exit")
	out, err := exec.CommandContext(ctx, l.o.Program, args...).CombinedOutput()
	data, rerr := os.ReadFile(tmp)
	if rerr != nil || len(bytes.TrimSpace(data)) == 0 {
		if err == nil {
			err = fmt.Errorf("ssh recorded no key")
		}
		return &attention{msg: "trusting the key: " + sshMessage(string(out)) + " " + err.Error()}
	}
	for _, ln := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if got := knownHostFingerprint(string(ln)); got != fp {
			return &attention{msg: fmt.Sprintf("the host now shows the key %s, not the %s you trusted: nothing was recorded", got, fp)}
		}
	}
	dest, err := l.knownHostsFile(ctx)
	if err != nil {
		return &attention{msg: "trusting the key: " + err.Error()}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return &attention{msg: "trusting the key: " + err.Error()}
	}
	f, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return &attention{msg: "trusting the key: " + err.Error()}
	}
	_, err = f.Write(append(bytes.TrimSpace(data), '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &attention{msg: "trusting the key: " + err.Error()}
	}
	return nil
}

// knownHostFingerprint is the SHA256 fingerprint of a known_hosts line's
// key, as ssh prints it ("SHA256:" and unpadded base64).
func knownHostFingerprint(line string) string {
	f := strings.Fields(line)
	if len(f) < 3 {
		return ""
	}
	blob, err := base64.StdEncoding.DecodeString(f[2])
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(blob)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// knownHostsFile is the user's first UserKnownHostsFile for the host, as
// `ssh -G` resolves their config (~ expanded).
func (l *sshLink) knownHostsFile(ctx context.Context) (string, error) {
	args := []string{}
	if l.o.ConfigFile != "" {
		args = append(args, "-F", l.o.ConfigFile)
	}
	args = append(args, "-G", "--", l.host.SSH)
	out, err := exec.CommandContext(ctx, l.o.Program, args...).Output()
	if err != nil {
		return "", fmt.Errorf("ssh -G: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "userknownhostsfile" {
			p := f[1]
			if strings.HasPrefix(p, "~/") {
				home, err := os.UserHomeDir()
				if err != nil {
					return "", err
				}
				p = filepath.Join(home, p[2:])
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("ssh -G names no UserKnownHostsFile")
}
