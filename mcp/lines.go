package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// MaxMessageBytes is the largest JSON-RPC message cos reads: one line on
// stdio (without its newline), one request body over HTTP. A larger stdio
// line is answered with a JSON-RPC error and skipped; a larger HTTP body is
// answered 413.
const MaxMessageBytes = 64 << 20

// maxIDBytes bounds the "id" an oversized message may carry for it to be
// echoed in the error that answers it.
const maxIDBytes = 1 << 10

// lineReader splits newline-delimited JSON-RPC into messages of at most max
// bytes. A longer line is read to its end through a fixed-size buffer —
// never held whole — and reported as an *oversizedLine.
type lineReader struct {
	br  *bufio.Reader
	max int
	// buf holds a line's first smallLine bytes and is reused from line to
	// line; big holds the rest in chunkSize pieces, so a long line grows
	// without the copies (and garbage) of a doubling slice.
	buf []byte
	big [][]byte
	n   int // the current line's length so far
}

const (
	smallLine = 1 << 20
	chunkSize = 1 << 20
)

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// oversizedLine is a line over the limit, consumed and dropped.
type oversizedLine struct {
	// Size is the line's length in bytes, newline excluded.
	Size int64
	// ID is the message's top-level "id" (a JSON string or number), nil
	// when the line holds none that could be recovered.
	ID json.RawMessage
}

// next returns the next line without its newline. For a line longer than
// max it returns (nil, *oversizedLine, nil) once the whole line has been
// read. At the end of the stream it returns io.EOF (a last line without a
// newline is returned first). The line is valid until the next call.
func (l *lineReader) next() ([]byte, *oversizedLine, error) {
	l.buf, l.big, l.n = l.buf[:0], nil, 0
	for {
		chunk, err := l.br.ReadSlice('\n')
		content := chunk
		if err == nil {
			content = chunk[:len(chunk)-1]
		}
		if l.n+len(content) > l.max {
			return nil, l.skip(content, err), nil
		}
		l.add(content)
		switch {
		case err == nil:
			return l.line(), nil, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && l.n > 0:
			return l.line(), nil, nil
		default:
			return nil, nil, err
		}
	}
}

// add appends p to the current line.
func (l *lineReader) add(p []byte) {
	l.n += len(p)
	for len(p) > 0 {
		if len(l.big) == 0 && len(l.buf) < smallLine {
			k := min(len(p), smallLine-len(l.buf))
			l.buf = append(l.buf, p[:k]...)
			p = p[k:]
			continue
		}
		if len(l.big) == 0 || len(l.big[len(l.big)-1]) == chunkSize {
			l.big = append(l.big, make([]byte, 0, chunkSize))
		}
		last := &l.big[len(l.big)-1]
		k := min(len(p), chunkSize-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
}

// line returns the current line as one slice.
func (l *lineReader) line() []byte {
	if len(l.big) == 0 {
		return l.buf
	}
	out := make([]byte, 0, l.n)
	out = append(out, l.buf...)
	for _, c := range l.big {
		out = append(out, c...)
	}
	l.big = nil
	return out
}

// skip reads the rest of an oversized line, whose start is the current line
// followed by content (the last chunk read, ending with err), looking for
// its id on the way.
func (l *lineReader) skip(content []byte, err error) *oversizedLine {
	var sc idScanner
	sc.feed(l.buf)
	for _, c := range l.big {
		sc.feed(c)
	}
	sc.feed(content)
	size := int64(l.n + len(content))
	l.buf, l.big, l.n = l.buf[:0], nil, 0
	for err == bufio.ErrBufferFull {
		var chunk []byte
		chunk, err = l.br.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		sc.feed(chunk)
		size += int64(len(chunk))
	}
	return &oversizedLine{Size: size, ID: sc.result()}
}

// oversizedResponse is the JSON-RPC error answering an oversized line:
// Invalid Request, with the message's id when it was recovered, else null.
func oversizedResponse(o *oversizedLine, max int) []byte {
	id := json.RawMessage("null")
	if o.ID != nil {
		id = o.ID
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error": map[string]any{
			"code": -32600,
			"message": fmt.Sprintf("message of %d bytes is over the limit of %d bytes (%s) for one message; it was skipped",
				o.Size, max, sizeText(max)),
			"data": map[string]any{"size_bytes": o.Size, "limit_bytes": max},
		},
	})
	return b
}

// sizeText renders a byte count as "64 MiB" when it is a whole number of
// MiB, else as bytes.
func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// idScanner finds the top-level "id" of a JSON object fed to it in pieces,
// in constant memory: it tracks nesting and strings, and keeps only the
// current top-level key (up to 3 bytes) and the id's value (up to
// maxIDBytes). The last "id" wins, as with encoding/json.
type idScanner struct {
	started bool // the first non-space byte was seen
	done    bool // the top-level value ended, or is not an object
	depth   int  // nesting of objects and arrays
	inStr   bool
	esc     bool
	phase   idPhase // where the scan is among the top-level members

	key      []byte // the current top-level key (bounded)
	keyLong  bool   // the key is longer than "id"
	isID     bool   // the value being read belongs to the key "id"
	capture  bool   // the id's value is being captured
	val      []byte // the captured value
	valLong  bool   // the value is longer than maxIDBytes
	id       json.RawMessage
	idBroken bool // the last "id" seen has a value that is no string or number
}

type idPhase uint8

const (
	phaseKey   idPhase = iota // a key (or the object's end) comes next
	phaseColon                // after a key
	phaseValue                // after the colon
	phaseAfter                // after a value
)

func (s *idScanner) feed(p []byte) {
	for i := 0; i < len(p); i++ {
		if s.done {
			return
		}
		if s.inStr && !s.esc && !s.capture && s.phase != phaseKey {
			// Fast path through a string nobody keeps (most of a large
			// message): jump to its next quote or backslash.
			j := bytes.IndexAny(p[i:], `"\`)
			if j < 0 {
				return
			}
			i += j
		}
		s.step(p[i])
	}
}

func (s *idScanner) step(c byte) {
	if s.inStr {
		s.stringByte(c)
		return
	}
	switch c {
	case ' ', '\t', '\r', '\n':
		s.endScalar()
		return
	}
	if !s.started {
		s.started = true
		if c != '{' {
			s.done = true
			return
		}
		s.depth = 1
		s.phase = phaseKey
		return
	}
	top := s.depth == 1
	switch c {
	case '{', '[':
		if top && s.phase == phaseValue {
			s.phase = phaseAfter
			if s.isID {
				s.idBroken, s.id = true, nil
			}
		}
		s.depth++
	case '}', ']':
		s.endScalar()
		s.depth--
		if s.depth <= 0 {
			s.done = true
		}
	case '"':
		s.inStr = true
		if !top {
			return
		}
		switch s.phase {
		case phaseKey:
			s.key, s.keyLong = s.key[:0], false
		case phaseValue:
			s.phase = phaseAfter
			if s.isID {
				s.capture, s.val, s.valLong = true, append(s.val[:0], '"'), false
			}
		}
	case ':':
		if top && s.phase == phaseColon {
			s.phase = phaseValue
		}
	case ',':
		s.endScalar()
		if top {
			s.phase = phaseKey
		}
	default: // a byte of a number, true, false or null
		if !top {
			return
		}
		if s.phase == phaseValue {
			s.phase = phaseAfter
			if s.isID {
				s.capture, s.val, s.valLong = true, s.val[:0], false
			}
		}
		if s.capture {
			s.keep(c)
		}
	}
}

func (s *idScanner) stringByte(c byte) {
	top := s.depth == 1
	keep := func() {
		switch {
		case top && s.phase == phaseKey:
			if len(s.key) < 3 {
				s.key = append(s.key, c)
			} else {
				s.keyLong = true
			}
		case s.capture:
			s.keep(c)
		}
	}
	if s.esc {
		s.esc = false
		keep()
		return
	}
	switch c {
	case '\\':
		s.esc = true
		keep()
	case '"':
		s.inStr = false
		if !top {
			return
		}
		switch {
		case s.phase == phaseKey:
			s.isID = !s.keyLong && string(s.key) == "id"
			s.phase = phaseColon
		case s.capture:
			s.keep('"')
			s.finish()
		}
	default:
		keep()
	}
}

func (s *idScanner) keep(c byte) {
	if len(s.val) < maxIDBytes {
		s.val = append(s.val, c)
	} else {
		s.valLong = true
	}
}

// endScalar closes a captured number or literal.
func (s *idScanner) endScalar() {
	if s.capture && !s.inStr {
		s.finish()
	}
}

// finish settles a captured id value: a JSON string or number is kept,
// anything else (null, true, too long, malformed) means no usable id.
func (s *idScanner) finish() {
	s.capture = false
	s.id, s.idBroken = nil, true
	if s.valLong {
		return
	}
	var v any
	if json.Unmarshal(s.val, &v) != nil {
		return
	}
	switch v.(type) {
	case string, float64:
		s.id, s.idBroken = append(json.RawMessage(nil), s.val...), false
	}
}

// result is the recovered id, nil when there is none.
func (s *idScanner) result() json.RawMessage {
	s.endScalar()
	if s.idBroken {
		return nil
	}
	return s.id
}
