package hosts

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/switchboard-hub/switchboard/hub"
)

// Entry is one host as it is kept (the config's hosts.<name>.ssh).
type Entry struct {
	Name, SSH string
}

// Options say how a Registry keeps its hosts and makes their links.
type Options struct {
	// Dir is <data-dir>/hosts: one 0700 folder per host for its sockets.
	Dir string
	// Save writes the hosts kept, name → ssh (the config file's hosts).
	Save func(ctx context.Context, all map[string]string) error
	// Dial makes the link of a host (SSH in the hub; Socket in tests);
	// onChange must be called at each change of its Host.
	Dial func(e Entry, dir string, onChange func(hub.Host)) Link
	// Announce publishes host_changed (hub.EventHostChanged) with the Host.
	Announce func(hub.Host)
	// Version is this hub's version (the local host's).
	Version string
}

// Registry is the hosts and their links: hub.HostService, and the Links
// the rest of the hub reaches hosts through.
type Registry struct {
	o     Options
	since time.Time

	mu    sync.Mutex
	links map[string]Link
	order []Entry // as kept
}

var _ hub.HostService = (*Registry)(nil)

// New is a registry of no host yet; Apply gives it the hosts kept.
func New(o Options) *Registry {
	return &Registry{o: o, since: time.Now().UTC(), links: map[string]Link{}}
}

// Apply makes the links match hosts, name → ssh (the config read or
// changed): new hosts are dialled, removed ones closed, a host whose ssh
// changed dialled again. A bad name or ssh value is left out (the
// config's validation refuses them first).
func (r *Registry) Apply(hosts map[string]string) { r.apply(entries(hosts)) }

func entries(m map[string]string) []Entry {
	out := make([]Entry, 0, len(m))
	for n, s := range m {
		out = append(out, Entry{n, s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func asMap(all []Entry) map[string]string {
	m := make(map[string]string, len(all))
	for _, e := range all {
		m[e.Name] = e.SSH
	}
	return m
}

func (r *Registry) apply(entries []Entry) {
	r.mu.Lock()
	want := map[string]Entry{}
	var keep []Entry
	for _, e := range entries {
		if hub.CheckHostName(e.Name) != nil || hub.CheckHostSSH(e.SSH) != nil {
			continue
		}
		want[e.Name] = e
		keep = append(keep, e)
	}
	var closing []Link
	for name, l := range r.links {
		if e, ok := want[name]; !ok || l.Host().SSH != e.SSH {
			closing = append(closing, l)
			delete(r.links, name)
		}
	}
	for _, e := range keep {
		if _, ok := r.links[e.Name]; !ok {
			r.links[e.Name] = r.o.Dial(e, filepath.Join(r.o.Dir, e.Name), r.announce)
		}
	}
	r.order = keep
	r.mu.Unlock()
	for _, l := range closing {
		l.Close()
		os.RemoveAll(filepath.Join(r.o.Dir, l.Name()))
	}
}

func (r *Registry) announce(h hub.Host) {
	if r.o.Announce != nil {
		r.o.Announce(h)
	}
}

// Link is the link of the host named, nil when none (hub.LocalHost has
// none: it is this hub).
func (r *Registry) Link(name string) Link {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.links[name]
}

// Links is every host's link, by name.
func (r *Registry) Links() []Link {
	r.mu.Lock()
	out := make([]Link, 0, len(r.links))
	for _, l := range r.links {
		out = append(out, l)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Close ends every link (the hub stops; the remote hubs keep running).
func (r *Registry) Close() {
	for _, l := range r.Links() {
		l.Close()
	}
}

func (r *Registry) local() hub.Host {
	return hub.Host{Name: hub.LocalHost, State: hub.HostConnected, Since: r.since, Version: r.o.Version}
}

// ListHosts implements hub.HostService.
func (r *Registry) ListHosts(context.Context) ([]hub.Host, error) {
	out := []hub.Host{r.local()}
	for _, l := range r.Links() {
		out = append(out, l.Host())
	}
	return out, nil
}

// Host implements hub.HostService.
func (r *Registry) Host(_ context.Context, name string) (hub.Host, error) {
	if name == hub.LocalHost {
		return r.local(), nil
	}
	if l := r.Link(name); l != nil {
		return l.Host(), nil
	}
	return hub.Host{}, hub.Errorf(hub.CodeNotFound, "host %q not found", name)
}

// AddHost implements hub.HostService: kept first (Save), then dialled.
func (r *Registry) AddHost(ctx context.Context, name, ssh string) (hub.Host, error) {
	if err := hub.CheckHostName(name); err != nil {
		return hub.Host{}, err
	}
	if err := hub.CheckHostSSH(ssh); err != nil {
		return hub.Host{}, err
	}
	r.mu.Lock()
	_, taken := r.links[name]
	all := append(append([]Entry(nil), r.order...), Entry{name, ssh})
	r.mu.Unlock()
	if taken {
		return hub.Host{}, hub.Errorf(hub.CodeConflict, "host %q is already listed", name)
	}
	if err := r.o.Save(ctx, asMap(all)); err != nil {
		return hub.Host{}, err
	}
	r.apply(all)
	return r.Host(ctx, name)
}

// RemoveHost implements hub.HostService.
func (r *Registry) RemoveHost(ctx context.Context, name string) error {
	if name == hub.LocalHost {
		return hub.Errorf(hub.CodeInvalidArgument, "the local machine cannot be removed")
	}
	r.mu.Lock()
	var all []Entry
	found := false
	for _, e := range r.order {
		if e.Name == name {
			found = true
			continue
		}
		all = append(all, e)
	}
	r.mu.Unlock()
	if !found {
		return hub.Errorf(hub.CodeNotFound, "host %q not found", name)
	}
	if err := r.o.Save(ctx, asMap(all)); err != nil {
		return err
	}
	r.apply(all)
	return nil
}

// ConnectHost implements hub.HostService.
func (r *Registry) ConnectHost(ctx context.Context, name string, c hub.HostConnect) (hub.Host, error) {
	if name == hub.LocalHost {
		return r.local(), nil
	}
	l := r.Link(name)
	if l == nil {
		return hub.Host{}, hub.Errorf(hub.CodeNotFound, "host %q not found", name)
	}
	l.Connect(c.TrustKey)
	return l.Host(), nil
}
