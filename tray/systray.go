//go:build desktop

package tray

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/getlantern/systray"

	"github.com/switchboard-hub/switchboard/tray/icon"
)

// run shows the icon and its menu until ctx is done or "Quit tray" is chosen.
// systray.Run must be called on the main goroutine: it locks the OS thread
// GTK runs on.
func run(ctx context.Context, o Options) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	childEnv = os.Environ()
	noGL()
	whilePanelDraws(log)
	// onReady runs on its own goroutine, possibly never (a quit before the
	// panel is ready): what it starts ends with ctx and is not waited for.
	onReady := func() {
		systray.SetIcon(icon.TrayStatePNG(icon.Trouble))
		systray.SetTooltip(Tooltip)
		ui := newSystrayUI(ctx, log)
		w := &Watcher{DataDir: o.DataDir, TraySecret: o.secret, Log: log, Publish: ui.show}
		ui.watcher = w
		ui.listen(ctx)
		go w.Run(ctx)
		go func() {
			<-ctx.Done()
			systray.Quit()
		}()
	}
	// onExit runs when the GTK loop ends (Quit tray, or ctx done).
	systray.Run(onReady, cancel)
	return nil
}

// noGL keeps GTK from loading the OpenGL driver, which the tray never
// uses: GDK_GL=disable, unless the user set GDK_GL. Without it the first
// GTK program on an X display probes GLX (and caches the answer on the
// root window), so a tray that starts before any other GTK program — at
// login, or on a fresh Xvfb — maps Mesa and LLVM: ~20 MiB of its ~40 MiB
// (docs/PERFORMANCE.md "The desktop's footprint"). What the tray starts
// (the app, the browser) gets the environment as it was (childEnv, taken
// before). Called before GTK starts, so no C code reads the environment
// meanwhile.
func noGL() {
	if _, set := os.LookupEnv("GDK_GL"); set {
		return
	}
	os.Setenv("GDK_GL", "disable")
}

// systrayUI shows Menus with getlantern/systray and turns clicks into
// Actions.
type systrayUI struct {
	ctx     context.Context
	log     *slog.Logger
	layout  *layout
	watcher *Watcher

	// clicks: what each entry does, read when clicked, in groups of up
	// to six entries (a submenu; the top level's three) that one
	// goroutine serves (listen).
	clicks []clickGroup

	mu      sync.Mutex // guards the last shown icon, title, tooltip
	icon    IconState
	title   string
	tooltip string
	started bool
}

type click struct {
	ch     <-chan struct{} // nil: no entry
	action func() Action
}

// clickGroup is the entries one goroutine serves: a permission's submenu
// (six), a turn's (two) or the top level's three.
type clickGroup [6]click

var iconOf = map[IconState]icon.State{
	IconIdle: icon.Idle, IconWorking: icon.Working, IconNeedsYou: icon.NeedsYou, IconTrouble: icon.Trouble,
	IconEscalated: icon.Escalated,
}

func newSystrayUI(ctx context.Context, log *slog.Logger) *systrayUI {
	ui := &systrayUI{ctx: ctx, log: log}
	items := map[item]*systray.MenuItem{}
	add := func(title, tooltip string, parent item) item {
		var mi *systray.MenuItem
		if parent == nil {
			mi = systray.AddMenuItem(title, tooltip)
		} else {
			mi = items[parent].AddSubMenuItem(title, tooltip)
		}
		items[mi] = mi
		return mi
	}
	ui.layout = newLayout(time.Now, add, systray.AddSeparator)
	l := ui.layout
	for i, s := range l.perms {
		ui.clicks = append(ui.clicks, clickGroup{
			{items[s.approve].ClickedCh, func() Action { return l.clickPermission(i, clickApprove) }},
			{items[s.deny].ClickedCh, func() Action { return l.clickPermission(i, clickDeny) }},
			{items[s.always].ClickedCh, func() Action { return l.clickPermission(i, clickAlways) }},
			{items[s.rememberAllow].ClickedCh, func() Action { return l.clickPermission(i, clickRememberAllow) }},
			{items[s.rememberDeny].ClickedCh, func() Action { return l.clickPermission(i, clickRememberDeny) }},
			{items[s.open].ClickedCh, func() Action { return l.clickOpenPermission(i) }}})
	}
	for i, s := range l.turns {
		ui.clicks = append(ui.clicks, clickGroup{
			{items[s.cancel].ClickedCh, func() Action { return l.clickCancel(i) }},
			{items[s.open].ClickedCh, func() Action { return l.clickOpenTurn(i) }}})
	}
	ui.clicks = append(ui.clicks, clickGroup{
		{items[l.open].ClickedCh, func() Action { return Action{Kind: ActOpen} }},
		{items[l.quitHub].ClickedCh, func() Action { return Action{Kind: ActQuitHub} }},
		{items[l.quitTray].ClickedCh, func() Action { return Action{Kind: ActQuitTray} }}})
	return ui
}

// listen serves every entry's clicks until ctx is done, a goroutine per
// group (17 for ~70 entries: a goroutine each was ~0.2 MiB of stacks).
// systray drops a click nobody is waiting for: a group's goroutine is back
// waiting within microseconds (the Action is carried out on a goroutine
// of its own), and only a click in the same submenu meanwhile could be
// lost, far faster than a person clicks.
func (ui *systrayUI) listen(ctx context.Context) {
	for _, g := range ui.clicks {
		go func() {
			for {
				var i int
				select { // a nil channel (no entry) never fires
				case <-ctx.Done():
					return
				case <-g[0].ch:
					i = 0
				case <-g[1].ch:
					i = 1
				case <-g[2].ch:
					i = 2
				case <-g[3].ch:
					i = 3
				case <-g[4].ch:
					i = 4
				case <-g[5].ch:
					i = 5
				}
				a := g[i].action()
				if a.Kind == ActQuitTray {
					systray.Quit()
					return
				}
				go ui.watcher.Do(ctx, a)
			}
		}()
	}
}

// show puts m on screen; only what changed is sent to the panel.
func (ui *systrayUI) show(m Menu) {
	ui.mu.Lock()
	if !ui.started || m.Icon != ui.icon {
		systray.SetIcon(icon.TrayStatePNG(iconOf[m.Icon]))
		ui.icon = m.Icon
	}
	// The label starts empty, so an empty title is not sent at start.
	if m.Title != ui.title {
		title := m.Title
		onGTK(func() { systray.SetTitle(title) })
		ui.title = m.Title
	}
	if !ui.started || m.Tooltip != ui.tooltip {
		systray.SetTooltip(m.Tooltip)
		ui.tooltip = m.Tooltip
	}
	ui.started = true
	ui.mu.Unlock()
	ui.layout.show(m)
}
