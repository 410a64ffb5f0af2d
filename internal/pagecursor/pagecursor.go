// Package pagecursor encodes the opaque cursors that the paged list tools
// (the task board, graph references and impact) hand back as next_cursor.
//
// A cursor says where a listing stopped, which query it belongs to and which
// log position the listing is consistent with. Its bytes, base64url without
// padding:
//
//	offset size  field
//	0      1     version (1)
//	1      8     log seq S the listing is consistent with (big endian)
//	9      8     Digest of the query (first 8 bytes of a SHA-256)
//	17     8     position: what the last page ended at (big endian; its
//	             meaning is the lister's: a task number, an offset)
//	25     4     CRC-32 (IEEE) of bytes 0–24
//
// The checksum catches truncation and edits; it is not a signature (a
// forged cursor can only name a position in a listing the caller may read
// anyway). Whether a well-formed cursor is stale is the lister's rule.
package pagecursor

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
)

const (
	version = 1
	rawLen  = 29
	// MaxLen is the longest text Decode looks at; a cursor is 39
	// characters.
	MaxLen = 64
)

var encoding = base64.RawURLEncoding.Strict()

// Cursor is the decoded form of a cursor.
type Cursor struct {
	// Seq is the log seq the listing is consistent with.
	Seq uint64
	// Query is the Digest of what was listed (filter, root, options).
	Query [8]byte
	// After is where the last page ended, in the lister's terms.
	After uint64
}

// Encode returns the cursor's text.
func (c Cursor) Encode() string {
	var buf [rawLen]byte
	buf[0] = version
	binary.BigEndian.PutUint64(buf[1:9], c.Seq)
	copy(buf[9:17], c.Query[:])
	binary.BigEndian.PutUint64(buf[17:25], c.After)
	binary.BigEndian.PutUint32(buf[25:29], crc32.ChecksumIEEE(buf[:25]))
	return encoding.EncodeToString(buf[:])
}

// Decode parses a cursor's text. Anything but a well-formed cursor is a
// *MalformedError.
func Decode(s string) (Cursor, error) {
	if len(s) > MaxLen {
		return Cursor{}, &MalformedError{Reason: "too long"}
	}
	raw, err := encoding.DecodeString(s)
	if err != nil {
		return Cursor{}, &MalformedError{Reason: "not base64url"}
	}
	if len(raw) != rawLen {
		return Cursor{}, &MalformedError{Reason: fmt.Sprintf("%d bytes, want %d", len(raw), rawLen)}
	}
	if raw[0] != version {
		return Cursor{}, &MalformedError{Reason: fmt.Sprintf("unknown version %d", raw[0])}
	}
	if crc32.ChecksumIEEE(raw[:25]) != binary.BigEndian.Uint32(raw[25:29]) {
		return Cursor{}, &MalformedError{Reason: "checksum mismatch"}
	}
	var c Cursor
	c.Seq = binary.BigEndian.Uint64(raw[1:9])
	copy(c.Query[:], raw[9:17])
	c.After = binary.BigEndian.Uint64(raw[17:25])
	return c, nil
}

// Digest is the identity of a query inside a cursor: the first 8 bytes of
// the SHA-256 of parts joined by NUL bytes.
func Digest(parts ...string) [8]byte {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	var d [8]byte
	copy(d[:], sum[:8])
	return d
}

// MalformedError is returned by Decode when the text is not a cursor:
// too long, not base64url, the wrong length or version, or a checksum that
// does not match.
type MalformedError struct{ Reason string }

func (e *MalformedError) Error() string { return "malformed cursor (" + e.Reason + ")" }
