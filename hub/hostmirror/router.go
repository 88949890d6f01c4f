package hostmirror

import (
	"context"

	"github.com/switchboard-hub/switchboard/hub"
	"github.com/switchboard-hub/switchboard/hub/client"
)

// Route is svcs with every call that names a host's object forwarded to
// that host (Router), everything else as svcs does it, and hosts as its
// HostHubs.
func Route(svcs hub.Services, hosts *Hosts) hub.Services {
	r := &Router{Service: svcs.Service, hosts: hosts}
	svcs.Service = r
	if svcs.Work != nil {
		svcs.Work = &workRouter{WorkService: svcs.Work, r: r}
	}
	if svcs.Queue != nil {
		svcs.Queue = &queueRouter{QueueService: svcs.Queue, r: r} // queue.go
	}
	svcs.HostHubs = hosts
	return svcs
}

// Router is a hub.Service that forwards to a host, through its link, each
// call naming a host's object ("<id>@<host>", hub/host.go) or creating a
// thread on a host (CreateThreadRequest.Host), and leaves every other call
// to the local Service: reads (threads, history, events, permissions,
// search, export) are of the copies the mirror keeps. The caller goes as
// it is (its client id and scope), so the host applies the same
// ownership; its decisions are recorded there as "link:<surface>". What
// the host answers comes back with its ids made local.
type Router struct {
	hub.Service
	hosts *Hosts
}

// on is the host an id names, its Remote and the host's own id: ok false
// for a local id.
func (r *Router) on(id string) (rem *client.Remote, remoteID, host string, ok bool, err error) {
	remoteID, host = hub.SplitHostID(id)
	if host == "" {
		return nil, id, "", false, nil
	}
	rem, err = r.hosts.Remote(host)
	return rem, remoteID, host, true, err
}

// fail is err of a call to host: HostUnreachable when the link failed
// rather than the host answering.
func fail(host string, err error) error {
	if unreachable(err) {
		return hub.HostUnreachable(host)
	}
	return err
}

func localThread(host string, t hub.Thread) hub.Thread {
	t.ID, t.Host = hub.HostID(t.ID, host), host
	if t.ContinuedFrom != "" {
		t.ContinuedFrom = hub.HostID(t.ContinuedFrom, host)
	}
	if t.ContinuedIn != "" {
		t.ContinuedIn = hub.HostID(t.ContinuedIn, host)
	}
	return t
}

func localTurn(host string, t hub.Turn) hub.Turn {
	t.ID, t.ThreadID = hub.HostID(t.ID, host), hub.HostID(t.ThreadID, host)
	return t
}

func localPermission(host string, p hub.Permission) hub.Permission {
	p.ID, p.ThreadID, p.TurnID, p.Host = hub.HostID(p.ID, host), hub.HostID(p.ThreadID, host), hub.HostID(p.TurnID, host), host
	return p
}

// threadCall forwards a call on a host's thread that answers the thread.
func (r *Router) threadCall(ctx context.Context, id string, local func() (hub.Thread, error),
	remote func(rem *client.Remote, id string) (hub.Thread, error)) (hub.Thread, error) {
	rem, rid, host, ok, err := r.on(id)
	if !ok {
		return local()
	}
	if err != nil {
		return hub.Thread{}, err
	}
	t, err := remote(rem, rid)
	if err != nil {
		return hub.Thread{}, fail(host, err)
	}
	return localThread(host, t), nil
}

// CreateThread creates the thread on req.Host when it names a host, and
// stores and announces its copy at once (the host's stream has no event
// for a new thread until something happens in it).
func (r *Router) CreateThread(ctx context.Context, c hub.Caller, req hub.CreateThreadRequest) (hub.Thread, error) {
	host := req.Host
	req.Host = ""
	if host == "" || host == hub.LocalHost {
		return r.Service.CreateThread(ctx, c, req)
	}
	rem, err := r.hosts.Remote(host)
	if err != nil {
		return hub.Thread{}, err
	}
	t, err := rem.CreateThread(ctx, c, req)
	if err != nil {
		return hub.Thread{}, fail(host, err)
	}
	w := threadCopy(host, t)
	// Announced here (a thread_updated without hostSeq: not the host's
	// event, so the link's resume point does not move), so the tray and
	// other windows list it before anything happens in it.
	ev, err := hub.NewEvent(hub.EventThreadUpdated, w.Threads[0], "", t.UpdatedAt, map[string]any{"thread": w.Threads[0], "host": host})
	if err != nil {
		return hub.Thread{}, err
	}
	w.Events = []hub.Event{ev}
	if err := <-r.hosts.local.Mirror(w); err != nil {
		return hub.Thread{}, err
	}
	return localThread(host, t), nil
}

// RenameThread implements hub.Service.
func (r *Router) RenameThread(ctx context.Context, c hub.Caller, id, title string) (hub.Thread, error) {
	return r.threadCall(ctx, id, func() (hub.Thread, error) { return r.Service.RenameThread(ctx, c, id, title) },
		func(rem *client.Remote, id string) (hub.Thread, error) { return rem.RenameThread(ctx, c, id, title) })
}

// CompactThread implements hub.Service.
func (r *Router) CompactThread(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	return r.threadCall(ctx, id, func() (hub.Thread, error) { return r.Service.CompactThread(ctx, c, id) },
		func(rem *client.Remote, id string) (hub.Thread, error) { return rem.CompactThread(ctx, c, id) })
}

// OpenSession implements hub.Service.
func (r *Router) OpenSession(ctx context.Context, c hub.Caller, id string) (hub.Thread, error) {
	return r.threadCall(ctx, id, func() (hub.Thread, error) { return r.Service.OpenSession(ctx, c, id) },
		func(rem *client.Remote, id string) (hub.Thread, error) { return rem.OpenSession(ctx, c, id) })
}

// SetMode implements hub.Service.
func (r *Router) SetMode(ctx context.Context, c hub.Caller, id, modeID string) (hub.Thread, error) {
	return r.threadCall(ctx, id, func() (hub.Thread, error) { return r.Service.SetMode(ctx, c, id, modeID) },
		func(rem *client.Remote, id string) (hub.Thread, error) { return rem.SetMode(ctx, c, id, modeID) })
}

// SetConfigOption implements hub.Service.
func (r *Router) SetConfigOption(ctx context.Context, c hub.Caller, id, configID, value string) (hub.Thread, error) {
	return r.threadCall(ctx, id, func() (hub.Thread, error) { return r.Service.SetConfigOption(ctx, c, id, configID, value) },
		func(rem *client.Remote, id string) (hub.Thread, error) {
			return rem.SetConfigOption(ctx, c, id, configID, value)
		})
}

// SetArchived implements hub.Shelf.
func (r *Router) SetArchived(ctx context.Context, c hub.Caller, id string, archived bool) (hub.Thread, error) {
	return r.threadCall(ctx, id, func() (hub.Thread, error) { return r.Service.SetArchived(ctx, c, id, archived) },
		func(rem *client.Remote, id string) (hub.Thread, error) { return rem.SetArchived(ctx, c, id, archived) })
}

// DeleteThread implements hub.Service.
func (r *Router) DeleteThread(ctx context.Context, c hub.Caller, id string) error {
	rem, rid, host, ok, err := r.on(id)
	if !ok {
		return r.Service.DeleteThread(ctx, c, id)
	}
	if err != nil {
		return err
	}
	return fail(host, rem.DeleteThread(ctx, c, rid))
}

// StartTurn implements hub.Service.
func (r *Router) StartTurn(ctx context.Context, c hub.Caller, threadID string, in hub.TurnInput) (hub.Turn, error) {
	rem, rid, host, ok, err := r.on(threadID)
	if !ok {
		return r.Service.StartTurn(ctx, c, threadID, in)
	}
	if err != nil {
		return hub.Turn{}, err
	}
	t, err := rem.StartTurn(ctx, c, rid, in)
	if err != nil {
		return hub.Turn{}, fail(host, err)
	}
	return localTurn(host, t), nil
}

// CancelTurn implements hub.Service.
func (r *Router) CancelTurn(ctx context.Context, c hub.Caller, turnID string) (hub.Turn, error) {
	rem, rid, host, ok, err := r.on(turnID)
	if !ok {
		return r.Service.CancelTurn(ctx, c, turnID)
	}
	if err != nil {
		return hub.Turn{}, err
	}
	t, err := rem.CancelTurn(ctx, c, rid)
	if err != nil {
		return hub.Turn{}, fail(host, err)
	}
	return localTurn(host, t), nil
}

// DecidePermission implements hub.Service: a host's permission is decided
// there (first answer wins there, as here).
func (r *Router) DecidePermission(ctx context.Context, c hub.Caller, id string, d hub.Decision) (hub.DecisionResult, error) {
	rem, rid, host, ok, err := r.on(id)
	if !ok {
		return r.Service.DecidePermission(ctx, c, id, d)
	}
	if err != nil {
		return hub.DecisionResult{}, err
	}
	res, err := rem.DecidePermission(ctx, c, rid, d)
	if err != nil {
		return hub.DecisionResult{}, fail(host, err)
	}
	res.Permission = localPermission(host, res.Permission)
	if res.Rule != nil {
		res.Rule.PermissionID = hub.HostID(res.Rule.PermissionID, host)
	}
	return res, nil
}

// DecidePermissions implements hub.Service: the local ids in one batch
// here, each host's permission decided on its host, the results in the
// order given.
func (r *Router) DecidePermissions(ctx context.Context, c hub.Caller, b hub.BatchDecision) (hub.BatchResult, error) {
	var local []string
	for _, id := range b.IDs {
		if hub.HostOf(id) == "" {
			local = append(local, id)
		}
	}
	if len(local) == len(b.IDs) {
		return r.Service.DecidePermissions(ctx, c, b)
	}
	byID := map[string]hub.BatchItem{}
	if len(local) > 0 {
		lb := b
		lb.IDs = local
		res, err := r.Service.DecidePermissions(ctx, c, lb)
		if err != nil {
			return hub.BatchResult{}, err
		}
		for _, it := range res.Results {
			byID[it.ID] = it
		}
	}
	out := hub.BatchResult{Results: make([]hub.BatchItem, 0, len(b.IDs))}
	for _, id := range b.IDs {
		if it, ok := byID[id]; ok {
			out.Results = append(out.Results, it)
			continue
		}
		res, err := r.DecidePermission(ctx, c, id, hub.Decision{Outcome: b.Outcome, Remember: b.Remember})
		it := hub.BatchItem{ID: id}
		if err != nil {
			it.Error = &hub.ItemError{Code: hub.ErrorCode(err), Message: hub.ErrorMessage(err)}
		} else {
			it.Permission = &res.Permission
		}
		out.Results = append(out.Results, it)
	}
	return out, nil
}

// AnswerElicitation implements hub.Elicitations.
func (r *Router) AnswerElicitation(ctx context.Context, c hub.Caller, id string, a hub.ElicitationAnswer) (hub.Elicitation, error) {
	rem, rid, host, ok, err := r.on(id)
	if !ok {
		return r.Service.AnswerElicitation(ctx, c, id, a)
	}
	if err != nil {
		return hub.Elicitation{}, err
	}
	el, err := rem.AnswerElicitation(ctx, c, rid, a)
	if err != nil {
		return hub.Elicitation{}, fail(host, err)
	}
	el.ID, el.ThreadID, el.TurnID = hub.HostID(el.ID, host), hub.HostID(el.ThreadID, host), hub.HostID(el.TurnID, host)
	return el, nil
}

// workRouter forwards the work calls on a host's thread that the API
// reaches for every thread (deleting one, with its worktree options).
type workRouter struct {
	hub.WorkService
	r *Router
}

// DeleteThreadWith implements hub.WorkService.
func (w *workRouter) DeleteThreadWith(ctx context.Context, c hub.Caller, id string, o hub.DeleteOptions) error {
	rem, rid, host, ok, err := w.r.on(id)
	if !ok {
		return w.WorkService.DeleteThreadWith(ctx, c, id, o)
	}
	if err != nil {
		return err
	}
	return fail(host, rem.DeleteThreadWith(ctx, c, rid, o))
}
