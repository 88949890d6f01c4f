package tray

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ErrResync: the hub closed the stream because the tray fell behind; it
// reconnects at once with its last id.
var ErrResync = errors.New("hub: stream fell behind (resync)")

// maxEventLine caps one SSE line (a data line holds one event's JSON).
const maxEventLine = 16 << 20

// Events opens GET /v1/events?scope=all, resuming after seq after (-1: live
// events only; otherwise sent as Last-Event-ID), and calls onOpen once the
// hub has answered 200, then fn for each event in order, until the stream
// ends or ctx is done. It returns ErrResync when the hub asked for a
// resync, io.ErrUnexpectedEOF when the stream ended otherwise, ctx.Err()
// when ctx ended it, or the error that ended it (onOpen's included: it
// closes the stream). A stream silent for 45 s (the hub pings every 15 s)
// is dropped. fn and onOpen run on the caller's goroutine.
func (c *Client) Events(ctx context.Context, after int64, onOpen func() error, fn func(Event)) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := url.Values{}
	if after < 0 {
		q.Set("after", "-1")
	}
	req, err := c.request(ctx, http.MethodGet, "/v1/events", q, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	if after >= 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	}
	// The hub pings idle streams every 15 s: silence for longer than
	// streamIdleTimeout (a hub that accepted the connection but does not
	// answer, or a dead connection) ends the stream.
	idle := time.AfterFunc(streamIdleTimeout, cancel)
	defer idle.Stop()
	resp, err := c.httpClient().Do(req)
	if err != nil {
		if ctx.Err() != nil && parent.Err() == nil {
			return errStreamIdle
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return decodeError(resp)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return fmt.Errorf("hub: /v1/events answered %q, not an event stream", ct)
	}
	if onOpen != nil {
		if err := onOpen(); err != nil {
			return err
		}
	}
	idle.Reset(streamIdleTimeout)
	body := readerFunc(func(p []byte) (int, error) {
		n, err := resp.Body.Read(p)
		if n > 0 {
			idle.Reset(streamIdleTimeout)
		}
		return n, err
	})
	err = readSSE(body, func(f frame) error {
		if f.event == "resync" {
			return ErrResync
		}
		if f.data == "" {
			return nil
		}
		ev, ok := decodeEvent(f)
		if ok {
			fn(ev)
		}
		return nil
	})
	if ctx.Err() != nil && parent.Err() == nil {
		return errStreamIdle
	}
	if parent.Err() != nil {
		return parent.Err()
	}
	return err
}

// decodeEvent decodes one event. A payload the tray's types cannot read
// (a future event's field of another shape) still yields the event's
// seq, type and ids, and a data line that is not JSON at all the frame's
// id and type: one odd event must neither stop the tray nor, by failing
// the stream, make it resume at the same event forever. ok is false when
// not even a seq can be read.
func decodeEvent(f frame) (ev Event, ok bool) {
	if err := json.Unmarshal([]byte(f.data), &ev); err != nil {
		var head struct {
			Seq      int64  `json:"seq"`
			Type     string `json:"type"`
			ThreadID string `json:"threadId"`
			TurnID   string `json:"turnId"`
		}
		if json.Unmarshal([]byte(f.data), &head) == nil {
			ev = Event{Seq: head.Seq, Type: head.Type, ThreadID: head.ThreadID, TurnID: head.TurnID}
		} else {
			seq, err := strconv.ParseInt(f.id, 10, 64)
			if err != nil {
				return Event{}, false
			}
			ev = Event{Seq: seq, Type: f.event}
		}
	}
	if ev.Type == "" {
		ev.Type = f.event
	}
	return ev, true
}

// streamIdleTimeout: no byte (event or ping) for this long ends a stream.
var streamIdleTimeout = 45 * time.Second

var errStreamIdle = errors.New("hub: the event stream went silent")

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// frame is one SSE message.
type frame struct{ id, event, data string }

// readSSE parses an SSE stream (comments ignored, multi-line data joined
// with "\n") and calls fn per message; it stops at fn's first error. A
// stream that ends is io.ErrUnexpectedEOF: the hub's streams never end
// on their own but by a resync.
func readSSE(r io.Reader, fn func(frame) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var f frame
	var data []string
	for {
		line, err := readLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if line == "" {
			if f.event != "" || data != nil {
				f.data = strings.Join(data, "\n")
				if err := fn(f); err != nil {
					return err
				}
			}
			f, data = frame{}, nil
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "id":
			f.id = value
		case "event":
			f.event = value
		case "data":
			data = append(data, value)
		}
	}
}

// readLine reads one line without its "\n" or "\r\n", at most maxEventLine
// bytes.
func readLine(br *bufio.Reader) (string, error) {
	var buf []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return "", err
		}
		buf = append(buf, chunk...)
		if len(buf) > maxEventLine {
			return "", errors.New("hub: an event stream line is too long")
		}
		if !isPrefix {
			return string(buf), nil
		}
	}
}
