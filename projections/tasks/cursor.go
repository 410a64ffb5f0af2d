package tasks

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// A board cursor is opaque to callers. Its bytes, base64url without padding:
//
//	offset size  field
//	0      1     version (1)
//	1      8     log seq S the listing is consistent with (big endian)
//	9      8     first 8 bytes of SHA-256 of the canonical filter
//	17     8     number of the last task id returned (TASK-042 → 42)
//	25     4     CRC-32 (IEEE) of bytes 0–24
//
// The checksum catches truncation and edits; it is not a signature (a
// forged cursor can only name a position in a listing the caller may read
// anyway).
const (
	cursorVersion = 1
	cursorLen     = 29
)

var cursorEncoding = base64.RawURLEncoding.Strict()

// cursor is the decoded form.
type cursor struct {
	seq    uint64
	filter [8]byte
	after  uint64
}

func (c cursor) encode() string {
	var buf [cursorLen]byte
	buf[0] = cursorVersion
	binary.BigEndian.PutUint64(buf[1:9], c.seq)
	copy(buf[9:17], c.filter[:])
	binary.BigEndian.PutUint64(buf[17:25], c.after)
	binary.BigEndian.PutUint32(buf[25:29], crc32.ChecksumIEEE(buf[:25]))
	return cursorEncoding.EncodeToString(buf[:])
}

// decodeCursor returns a *CursorError (errors.Is ErrCursor) for anything
// but a well-formed cursor.
func decodeCursor(s string) (cursor, error) {
	if len(s) > 64 {
		return cursor{}, &CursorError{Reason: "too long"}
	}
	raw, err := cursorEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, &CursorError{Reason: "not base64url"}
	}
	if len(raw) != cursorLen {
		return cursor{}, &CursorError{Reason: fmt.Sprintf("%d bytes, want %d", len(raw), cursorLen)}
	}
	if raw[0] != cursorVersion {
		return cursor{}, &CursorError{Reason: fmt.Sprintf("unknown version %d", raw[0])}
	}
	if crc32.ChecksumIEEE(raw[:25]) != binary.BigEndian.Uint32(raw[25:29]) {
		return cursor{}, &CursorError{Reason: "checksum mismatch"}
	}
	var c cursor
	c.seq = binary.BigEndian.Uint64(raw[1:9])
	copy(c.filter[:], raw[9:17])
	c.after = binary.BigEndian.Uint64(raw[17:25])
	return c, nil
}

// digest is the filter's identity inside a cursor.
func (f Filter) digest() [8]byte {
	sum := sha256.Sum256([]byte(f.Status + "\x00" + f.Assignee + "\x00" + f.Label))
	var d [8]byte
	copy(d[:], sum[:8])
	return d
}

// CursorError says why a cursor is malformed.
type CursorError struct{ Reason string }

func (e *CursorError) Error() string {
	return "invalid board cursor (" + e.Reason + "); obtain a new one by listing without cursor"
}

// Unwrap makes errors.Is(err, ErrCursor) true.
func (e *CursorError) Unwrap() error { return ErrCursor }

// StaleCursorError says why a cursor no longer describes the board.
type StaleCursorError struct {
	Reason string
	// TaskID is the task whose change invalidated the listing, if one did.
	TaskID string
}

func (e *StaleCursorError) Error() string {
	return "the board changed since this cursor (" + e.Reason + "); list again without cursor"
}

// Unwrap makes errors.Is(err, ErrStaleCursor) true.
func (e *StaleCursorError) Unwrap() error { return ErrStaleCursor }
