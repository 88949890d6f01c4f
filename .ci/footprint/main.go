// Command footprint prints the memory of a set of processes as the
// desktop benchmark reports it (.ci/bench-desktop, make bench-desktop):
// for each PID, the kernel's PSS (/proc/PID/smaps_rollup), its PSS within
// the set, its private memory (USS) and its RSS, then the totals.
//
// The kernel's PSS divides each shared page among every process on the
// machine that maps it, so it falls when another program maps the same
// libraries (another WebKit or GTK app, another helper's build of
// Switchboard on a shared machine) and rises when they exit. PSS within
// the set divides each page among the given processes only, read from
// /proc/PID/pagemap (page frame numbers: needs root or CAP_SYS_ADMIN): it
// is what the set costs on a machine where nothing else maps those pages,
// and does not depend on what else runs. Without access to page frames
// it is left blank.
//
//	footprint [-top N] PID...
//
// -top N also prints, for each process, the N mappings (a file, [heap],
// [stack], [anon]) with the most PSS within the set.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const pageSize = 4096

// vma is one mapping of /proc/PID/smaps.
type vma struct {
	start, end uint64
	name       string
	rss, pss   uint64   // KiB
	shared     uint64   // KiB of Shared_Clean + Shared_Dirty: pages others map too
	frames     []uint64 // resident pages' frames, read only when shared > 0
}

type proc struct {
	pid   int
	name  string
	vmas  []vma
	rs    map[string]uint64  // smaps_rollup fields, KiB
	own   float64            // PSS within the set, KiB
	byMap map[string]float64 // own, by mapping name
	noPFN bool
}

func main() {
	top := flag.Int("top", 0, "print each process's `N` largest mappings")
	flag.Parse()
	var procs []*proc
	for _, a := range flag.Args() {
		pid, err := strconv.Atoi(a)
		if err != nil {
			fatal(fmt.Errorf("not a pid: %q", a))
		}
		p, err := read(pid)
		if err != nil {
			fatal(err)
		}
		procs = append(procs, p)
	}
	if len(procs) == 0 {
		fatal(fmt.Errorf("no PID given (usage: footprint [-top N] PID…)"))
	}
	// How many of the set map each shared frame.
	mappers := map[uint64]int{}
	for _, p := range procs {
		seen := map[uint64]bool{}
		for _, v := range p.vmas {
			for _, f := range v.frames {
				if !seen[f] {
					seen[f] = true
					mappers[f]++
				}
			}
		}
	}
	noPFN := false
	for _, p := range procs {
		noPFN = noPFN || p.noPFN
		if !p.noPFN {
			p.account(mappers)
		}
	}
	fmt.Printf("%-22s %7s %9s %9s %9s %9s %9s\n", "process", "pid", "PSS", "own PSS", "USS", "anon PSS", "RSS")
	var tPSS, tOwn, tUSS, tAnon, tRSS float64
	for _, p := range procs {
		pss, uss := p.rs["Pss"], p.rs["Private_Clean"]+p.rs["Private_Dirty"]
		own := "-"
		if !noPFN {
			own = mib(p.own)
		}
		fmt.Printf("%-22s %7d %9s %9s %9s %9s %9s\n", p.name, p.pid, mib(float64(pss)), own,
			mib(float64(uss)), mib(float64(p.rs["Pss_Anon"])), mib(float64(p.rs["Rss"])))
		tPSS += float64(pss)
		tOwn += p.own
		tUSS += float64(uss)
		tAnon += float64(p.rs["Pss_Anon"])
		tRSS += float64(p.rs["Rss"])
		if *top > 0 && !noPFN {
			p.printTop(*top)
		}
	}
	own := "-"
	if !noPFN {
		own = mib(tOwn)
	}
	fmt.Printf("%-22s %7s %9s %9s %9s %9s %9s\n", "total (MiB)", "", mib(tPSS), own, mib(tUSS), mib(tAnon), mib(tRSS))
}

// account sets p.own and p.byMap: each resident page counts 1/n, n the
// number of processes of the set that map its frame (1 for a page no
// other process maps at all, read from smaps without its frame).
func (p *proc) account(mappers map[uint64]int) {
	p.byMap = map[string]float64{}
	for _, v := range p.vmas {
		if v.shared == 0 {
			p.own += float64(v.rss)
			p.byMap[v.name] += float64(v.rss)
		}
	}
	for _, v := range p.vmas {
		for _, pfn := range v.frames {
			kib := float64(pageSize/1024) / float64(mappers[pfn])
			p.own += kib
			p.byMap[v.name] += kib
		}
	}
}

func (p *proc) printTop(n int) {
	type row struct {
		name string
		kib  float64
	}
	var rows []row
	for k, v := range p.byMap {
		rows = append(rows, row{k, v})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].kib > rows[j].kib })
	for i, r := range rows {
		if i == n {
			break
		}
		fmt.Printf("    %8.1f MiB  %s\n", r.kib/1024, r.name)
	}
}

func read(pid int) (*proc, error) {
	p := &proc{pid: pid, rs: map[string]uint64{}}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil {
		p.name = filepath.Base(exe)
	}
	rollup, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(string(rollup), "\n") {
		if k, v, ok := field(l); ok {
			p.rs[k] = v
		}
	}
	sm, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return nil, err
	}
	defer sm.Close()
	sc := bufio.NewScanner(sm)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if k, v, ok := field(l); ok {
			if len(p.vmas) == 0 {
				continue
			}
			v0 := &p.vmas[len(p.vmas)-1]
			switch k {
			case "Rss":
				v0.rss = v
			case "Pss":
				v0.pss = v
			case "Shared_Clean", "Shared_Dirty":
				v0.shared += v
			}
			continue
		}
		// A mapping's header: start-end perms offset dev inode [name].
		f := strings.Fields(l)
		if len(f) < 5 || !strings.Contains(f[0], "-") {
			continue
		}
		s, e, _ := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(s, 16, 64)
		end, err2 := strconv.ParseUint(e, 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		name := "[anon]"
		if len(f) >= 6 {
			name = strings.Join(f[5:], " ")
		}
		p.vmas = append(p.vmas, vma{start: start, end: end, name: name})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		p.noPFN = true
		return p, nil
	}
	defer pm.Close()
	for i := range p.vmas {
		v := &p.vmas[i]
		if v.shared == 0 {
			continue
		}
		forFrames(pm, *v, func(pfn uint64) { v.frames = append(v.frames, pfn) })
		if len(v.frames) == 0 && v.rss > 0 {
			// Frames read as 0: no CAP_SYS_ADMIN.
			p.noPFN = true
			return p, nil
		}
	}
	return p, nil
}

// forFrames calls fn with the frame of each resident page of v.
func forFrames(pagemap *os.File, v vma, fn func(pfn uint64)) {
	const chunk = 4096 // entries a read
	buf := make([]byte, 8*chunk)
	for addr := v.start; addr < v.end; addr += chunk * pageSize {
		n := min(uint64(chunk), (v.end-addr)/pageSize)
		got, err := pagemap.ReadAt(buf[:8*n], int64(addr/pageSize*8))
		if err != nil && got == 0 {
			return
		}
		for i := 0; i+8 <= got; i += 8 {
			e := binary.LittleEndian.Uint64(buf[i:])
			if e&(1<<63) == 0 { // not present
				continue
			}
			if pfn := e & (1<<55 - 1); pfn != 0 {
				fn(pfn)
			}
		}
	}
}

// field parses "Name:   123 kB".
func field(l string) (string, uint64, bool) {
	k, rest, ok := strings.Cut(l, ":")
	if !ok || strings.ContainsAny(k, " -") {
		return "", 0, false
	}
	f := strings.Fields(rest)
	if len(f) != 2 || f[1] != "kB" {
		return "", 0, false
	}
	v, err := strconv.ParseUint(f[0], 10, 64)
	return k, v, err == nil
}

func mib(kib float64) string { return fmt.Sprintf("%.1f", kib/1024) }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "footprint:", err)
	os.Exit(1)
}
