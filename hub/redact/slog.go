package redact

import (
	"context"
	"log/slog"
)

// Handler wraps a slog.Handler so that the message and every string, error
// and Stringer value of a record (in groups too) reach it redacted, while
// on() reports true (on is read for each record, so a config change
// applies at once; nil means always on).
func Handler(h slog.Handler, on func() bool) slog.Handler {
	return &handler{next: h, on: on}
}

type handler struct {
	next slog.Handler
	on   func() bool
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	if h.on != nil && !h.on() {
		return h.next.Handle(ctx, r)
	}
	msg, _ := String(r.Message)
	out := slog.NewRecord(r.Time, r.Level, msg, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs redacts attrs once, when they are added: they are the same on
// every record (and the switch does not apply to them).
func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = attr(a)
	}
	return &handler{next: h.next.WithAttrs(out), on: h.on}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{next: h.next.WithGroup(name), on: h.on}
}

func attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s, ok := String(v.String()); ok {
			return slog.String(a.Key, s)
		}
	case slog.KindGroup:
		g := v.Group()
		out := make([]slog.Attr, len(g))
		for i, x := range g {
			out[i] = attr(x)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		var s string
		switch x := v.Any().(type) {
		case error:
			s = x.Error()
		case interface{ String() string }:
			s = x.String()
		case []byte:
			s = string(x)
		default:
			return slog.Attr{Key: a.Key, Value: v}
		}
		if r, ok := String(s); ok {
			return slog.String(a.Key, r)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
