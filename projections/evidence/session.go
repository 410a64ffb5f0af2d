package evidence

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxSessionLen is the longest session id, in bytes.
const MaxSessionLen = 128

// StreamPrefix precedes the session id in the stream name.
const StreamPrefix = "evidence:"

// Stream returns the log stream of a session: "evidence:<session>".
func Stream(session string) string { return StreamPrefix + session }

// SessionOfStream returns the session of an evidence stream.
func SessionOfStream(stream string) (string, bool) {
	s, ok := strings.CutPrefix(stream, StreamPrefix)
	if !ok || ValidateSession(s) != nil {
		return "", false
	}
	return s, true
}

// ValidateSession checks a session id: 1–128 characters from A–Z a–z 0–9
// "." "_" "-", not starting with ".", so that it is safe inside a file name
// (evidence_bundle_<session>.json) and a stream name.
func ValidateSession(s string) error {
	if s == "" || len(s) > MaxSessionLen {
		return fmt.Errorf("%w: got %d characters; legal: 1–%d characters of A–Z a–z 0–9 . _ -, e.g. \"sess-2026-11-30a\"", ErrInvalidSession, len(s), MaxSessionLen)
	}
	if s[0] == '.' {
		return fmt.Errorf("%w: %q starts with \".\"; legal: 1–%d characters of A–Z a–z 0–9 . _ -, not starting with \".\", e.g. \"sess-2026-11-30a\"", ErrInvalidSession, s, MaxSessionLen)
	}
	for i := 0; i < len(s); i++ {
		if !sessionByte(s[i]) {
			_, n := utf8.DecodeRuneInString(s[i:])
			return fmt.Errorf("%w: %q has %q at byte offset %d; legal: 1–%d characters of A–Z a–z 0–9 . _ -, e.g. \"sess-2026-11-30a\"", ErrInvalidSession, s, s[i:i+n], i, MaxSessionLen)
		}
	}
	return nil
}

// sessionByte reports whether c may appear in a session id.
func sessionByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return c == '.' || c == '_' || c == '-'
}
