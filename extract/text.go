package extract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cos-dev/cos/graph"
)

// sniffLen is how many leading bytes are checked for a NUL to call a file
// binary (the heuristic git and grep use).
const sniffLen = 8000

// isBinary reports whether data looks binary: a NUL byte in its first
// sniffLen bytes.
func isBinary(data []byte) bool {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	for _, b := range data {
		if b == 0 {
			return true
		}
	}
	return false
}

// validUTF8 returns data as a valid UTF-8 string. Valid sequences are kept;
// each byte that does not start a valid sequence (Latin-1, EUC-KR, …) is
// read as the Latin-1 code point of the same value, so the conversion is
// deterministic and never loses a byte's position.
func validUTF8(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	var b strings.Builder
	b.Grow(len(data) + len(data)/8)
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n <= 1 {
			b.WriteRune(rune(data[0]))
			data = data[1:]
			continue
		}
		b.Write(data[:n])
		data = data[n:]
	}
	return b.String()
}

// cleanString makes any string safe to store: valid UTF-8 with NUL bytes
// removed.
func cleanString(s string) string {
	if !utf8.ValidString(s) {
		s = validUTF8([]byte(s))
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}

// uidPart escapes a fragment so that the uid it goes into passes
// graph.ValidateUID. A fragment that is already legal is returned as is;
// otherwise whitespace, control characters, '%' and backticks become %XX
// escapes and every ".." becomes "%2E%2E".
func uidPart(s string) string {
	s = cleanString(s)
	need := strings.Contains(s, "../") || strings.HasSuffix(s, "/..")
	if !need {
		for _, r := range s {
			if r == '`' || unicode.IsSpace(r) || unicode.IsControl(r) {
				need = true
				break
			}
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '%' || r == '`' || unicode.IsSpace(r) || unicode.IsControl(r):
			var buf [utf8.UTFMax]byte
			n := utf8.EncodeRune(buf[:], r)
			for _, c := range buf[:n] {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		default:
			b.WriteRune(r)
		}
	}
	out := b.String()
	if strings.Contains(out, "..") {
		out = strings.ReplaceAll(out, "..", "%2E%2E")
	}
	return out
}

// clampUID keeps a uid within graph.MaxUIDLen: a longer one is cut on a
// rune boundary and ends with "~" and 16 hex digits of its SHA-256.
func clampUID(uid string) string {
	if len(uid) <= graph.MaxUIDLen {
		return uid
	}
	sum := sha256.Sum256([]byte(uid))
	suffix := "~" + hex.EncodeToString(sum[:8])
	cut := graph.MaxUIDLen - len(suffix)
	for cut > 0 && !utf8.RuneStart(uid[cut]) {
		cut--
	}
	return uid[:cut] + suffix
}

// sourceText is what parsers see: data as valid UTF-8 (see validUTF8) with
// NUL bytes turned into spaces, so that lines and most offsets are kept and
// no parser stops at a NUL.
func sourceText(data []byte) []byte {
	s := []byte(validUTF8(data)) // a copy: data is never modified
	if bytes.IndexByte(s, 0) >= 0 {
		for i, c := range s {
			if c == 0 {
				s[i] = ' '
			}
		}
	}
	return s
}
