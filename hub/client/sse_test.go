package client

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReaderFrames(t *testing.T) {
	in := ": ping\n\n" +
		"id: 1\nevent: message_delta\ndata: {\"seq\":1,\"type\":\"message_delta\",\"text\":\"a\"}\n\n" +
		"id: 2\r\nevent: x\r\ndata: line1\r\ndata: line2\r\n\r\n" +
		"event: resync\ndata:\n\n" +
		"data:no-space\n\n"
	r := NewReader(strings.NewReader(in), 0)
	want := []Frame{
		{ID: "1", Event: "message_delta", Data: `{"seq":1,"type":"message_delta","text":"a"}`},
		{ID: "2", Event: "x", Data: "line1\nline2"},
		{Event: "resync"},
		{Data: "no-space"},
	}
	for i, w := range want {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if f != w {
			t.Errorf("frame %d = %+v, want %+v", i, f, w)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
}

func TestReaderEnds(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
	}{
		{"inside a frame", "id: 1\ndata: {}\n", io.ErrUnexpectedEOF},
		{"a line without its end", "id: 1\ndata: {", io.ErrUnexpectedEOF},
		{"empty", "", io.EOF},
		{"comments only", ": ping\n\n: ping\n", io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReader(strings.NewReader(tt.in), 0).Next()
			if err != tt.want {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// A line over the cap is refused after reading at most the cap (plus one
// buffer), whatever follows: a hostile hub cannot make the client hold an
// unbounded line.
func TestReaderLineCap(t *testing.T) {
	const max = 100 << 10
	ok := "data: " + strings.Repeat("a", max-6) + "\n\n"
	r := NewReader(strings.NewReader(ok), max)
	if f, err := r.Next(); err != nil || len(f.Data) != max-6 {
		t.Fatalf("a line of exactly the cap: %d bytes, %v", len(f.Data), err)
	}
	long := &endless{prefix: "id: 1\ndata: "}
	r = NewReader(long, max)
	if _, err := r.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("an endless line: %v, want ErrLineTooLong", err)
	}
	if long.n > max+2*(64<<10) {
		t.Errorf("read %d bytes of an endless line before refusing it (cap %d)", long.n, max)
	}
}

// endless is prefix then 'x' forever.
type endless struct {
	prefix string
	n      int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if e.n < len(e.prefix) {
			p[n] = e.prefix[e.n]
		} else {
			p[n] = 'x'
		}
		n++
		e.n++
	}
	return n, nil
}

func TestDecodeEvent(t *testing.T) {
	tests := []struct {
		name     string
		f        Frame
		ok       bool
		seq      int64
		typ      string
		payload  string
		threadID string
	}{
		{"whole", Frame{ID: "7", Event: "plan", Data: `{"seq":7,"type":"plan","threadId":"th","turnId":"tu","at":"2026-01-02T03:04:05Z","entries":[]}`}, true, 7, "plan", `{"entries":[]}`, "th"},
		{"type from the frame", Frame{ID: "8", Event: "plan", Data: `{"seq":8}`}, true, 8, "plan", `{}`, ""},
		{"seq from the id", Frame{ID: "9", Event: "plan", Data: `{"type":"plan"}`}, true, 9, "plan", `{}`, ""},
		{"data not JSON", Frame{ID: "10", Event: "odd", Data: `not json`}, true, 10, "odd", ``, ""},
		{"seq of another type", Frame{ID: "11", Event: "odd", Data: `{"seq":"x"}`}, true, 11, "odd", ``, ""},
		{"nothing to go on", Frame{Event: "odd", Data: `not json`}, false, 0, "", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := DecodeEvent(tt.f)
			if ok != tt.ok || ev.Seq != tt.seq || ev.Type != tt.typ || string(ev.Payload) != tt.payload || ev.ThreadID != tt.threadID {
				t.Errorf("got %v %+v (payload %s), want ok=%v seq=%d type=%q payload=%s thread=%q", ok, ev, ev.Payload, tt.ok, tt.seq, tt.typ, tt.payload, tt.threadID)
			}
		})
	}
}

// pieces returns one piece per Read, as a connection delivers what the
// hub wrote at once.
type pieces []string

func (p *pieces) Read(b []byte) (int, error) {
	if len(*p) == 0 {
		return 0, io.EOF
	}
	n := copy(b, (*p)[0])
	if n < len((*p)[0]) {
		(*p)[0] = (*p)[0][n:]
	} else {
		*p = (*p)[1:]
	}
	return n, nil
}

// Ready says whether the next frame with data is already buffered, so a
// client may batch it without waiting; never for a partial frame, a
// frame without data alone, or a resync (which ends the connection).
func TestReaderReady(t *testing.T) {
	in := pieces{
		"id: 1\ndata: a\n\nid: 2\ndata: b\n\nid: 3\nda",
		"ta: c\n\n: ping\n\nid: 4\n\n",
		"id: 5\r\ndata: d\r\n\r\nevent: resync\ndata:\n\n",
	}
	r := NewReader(&in, 0)
	if r.Ready() {
		t.Fatal("ready before anything was read")
	}
	for i, want := range []struct {
		data  string
		ready bool
	}{
		{"a", true},  // frame 2 arrived with frame 1
		{"b", false}, // frame 3 is cut
		{"c", false}, // a ping and a frame without data: nothing to return yet
		{"", false},  // the frame without data (Stream skips it)
		{"d", false}, // a resync ends the connection: never batched
		{"", false},  // the resync itself
	} {
		f, err := r.Next()
		if err != nil || f.Data != want.data {
			t.Fatalf("frame %d: %+v, %v; want data %q", i, f, err, want.data)
		}
		if got := r.Ready(); got != want.ready {
			t.Errorf("after frame %d (%q): Ready %v, want %v", i, want.data, got, want.ready)
		}
	}
}
