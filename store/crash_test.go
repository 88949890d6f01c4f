//go:build unix

package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/switchboard-hub/switchboard/hub"
)

const crashEnv = "SWITCHBOARD_STORE_CRASH_DB"

// TestCrashChild is the child of TestUncleanStop: it writes until killed,
// printing the last seq of every committed Write.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("only run by TestUncleanStop")
	}
	db, err := Open(path, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	th := thread("t1", "c", 1)
	if err := db.Commit(context.Background(), writeThreads(th)); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for i := 0; ; i++ {
		w := &hub.Write{}
		for j := range 10 {
			w.Events = append(w.Events, event(hub.EventMessageDelta, "t1", "", i*10+j))
		}
		if err := db.Commit(context.Background(), w); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(w.Events[9].Seq)
	}
}

// TestUncleanStop kills (SIGKILL) a process in the middle of writing and
// checks that everything it reported committed is there, with no gap, in
// an intact database.
func TestUncleanStop(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	path := filepath.Join(t.TempDir(), "sb.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var committed int64
	sc := bufio.NewScanner(out)
	for lines := 0; lines < 50 && sc.Scan(); lines++ {
		n, err := strconv.ParseInt(sc.Text(), 10, 64)
		if err != nil {
			t.Fatalf("child: %s", sc.Text())
		}
		committed = n
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if committed == 0 {
		t.Fatal("the child committed nothing")
	}

	ctx := context.Background()
	db := mustOpenAt(t, path, Options{})
	var check string
	if err := db.rdb.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	last, err := db.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if last < committed || last%10 != 0 {
		t.Fatalf("LastSeq %d: the child reported %d committed, in Writes of 10", last, committed)
	}
	var n, maxSeq int64
	if err := db.rdb.QueryRowContext(ctx, `SELECT COUNT(*), MAX(seq) FROM events`).Scan(&n, &maxSeq); err != nil {
		t.Fatal(err)
	}
	if n != maxSeq {
		t.Errorf("%d events up to seq %d: a gap", n, maxSeq)
	}
	w := &hub.Write{Events: []hub.Event{event(hub.EventMessageDelta, "t1", "", 0)}}
	mustCommit(t, db, w)
	if w.Events[0].Seq != last+1 {
		t.Errorf("next seq %d, want %d", w.Events[0].Seq, last+1)
	}
}
