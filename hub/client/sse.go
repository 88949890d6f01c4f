package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/switchboard-hub/switchboard/hub"
)

// Frame is one message of an event stream as sent: its id:, event: and
// data: fields, the data lines joined with "\n".
type Frame struct {
	ID, Event, Data string
}

// ErrLineTooLong: a line of the event stream is longer than the client's
// cap (Options.MaxEventBytes). The stream cannot go on past it.
var ErrLineTooLong = errors.New("hub: an event stream line is longer than the client's cap")

// Reader parses a text/event-stream (the WHATWG format, as the hub writes
// it) into frames. Comments (": ping") are skipped. It holds at most one
// line of at most its cap in memory.
type Reader struct {
	br  *bufio.Reader
	max int
	buf []byte // the line being read, when it spans reads
}

// NewReader reads frames from r, refusing lines over maxLine bytes
// (0: DefaultMaxEventBytes).
func NewReader(r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxEventBytes
	}
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: maxLine}
}

// Next returns the next frame. It returns io.EOF when the stream ends
// between frames, io.ErrUnexpectedEOF when it ends inside one,
// ErrLineTooLong for a line over the cap, or the read error.
func (r *Reader) Next() (Frame, error) {
	var f Frame
	var data []byte
	started, hasData := false, false
	for {
		line, err := r.line()
		if err != nil {
			if err == io.EOF && started {
				err = io.ErrUnexpectedEOF
			}
			return Frame{}, err
		}
		if len(line) == 0 {
			if !started {
				continue
			}
			f.Data = string(data)
			return f, nil
		}
		if line[0] == ':' {
			continue // a comment: ": ping"
		}
		started = true
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "id":
			f.ID = string(value)
		case "event":
			f.Event = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data, hasData = append(data, value...), true
		}
	}
}

// Ready reports whether a whole frame with data, other than a resync, is
// already buffered: the next frames up to it come without reading from
// the connection. It reads nothing. (A frame without data before it is
// skipped by Stream, as are comments.)
func (r *Reader) Ready() bool {
	b, _ := r.br.Peek(r.br.Buffered())
	hasData := false
	for {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			return false
		}
		b, line = rest, bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			if hasData {
				return true
			}
		case line[0] == ':':
		default:
			name, value, _ := bytes.Cut(line, []byte(":"))
			switch string(name) {
			case "data":
				hasData = true
			case "event":
				if string(bytes.TrimPrefix(value, []byte(" "))) == hub.EventResync {
					return false // it ends the connection
				}
			}
		}
	}
}

// line reads one line without its end ("\n" or "\r\n"). The slice is
// valid until the next call.
func (r *Reader) line() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(r.buf)+len(chunk) > r.max+2 { // +2: the line's end
			return nil, ErrLineTooLong
		}
		switch {
		case err == nil && len(r.buf) == 0:
			return trimEOL(chunk), nil // the common case: no copy
		case err == nil:
			r.buf = append(r.buf, chunk...)
			return trimEOL(r.buf), nil
		case errors.Is(err, bufio.ErrBufferFull):
			r.buf = append(r.buf, chunk...)
		case err == io.EOF && len(r.buf)+len(chunk) > 0:
			return nil, io.ErrUnexpectedEOF // a line without its end
		default:
			return nil, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// DecodeEvent decodes a frame's data into an event. A payload that is
// not a JSON object, or whose seq is not a number, still yields the
// frame's id (as Seq) and event (as Type), so that one odd event neither
// stops a client nor, by failing the stream, makes it resume at the same
// event forever. ok is false when not even a seq can be read.
func DecodeEvent(f Frame) (ev hub.Event, ok bool) {
	if err := json.Unmarshal([]byte(f.Data), &ev); err != nil {
		seq, err := strconv.ParseInt(f.ID, 10, 64)
		if err != nil {
			return hub.Event{}, false
		}
		ev = hub.Event{Seq: seq, Type: f.Event}
	}
	if ev.Type == "" {
		ev.Type = f.Event
	}
	if ev.Seq == 0 {
		if seq, err := strconv.ParseInt(f.ID, 10, 64); err == nil {
			ev.Seq = seq
		}
	}
	return ev, true
}
