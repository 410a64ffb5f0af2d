package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidUTF8 returns data as a valid UTF-8 string. Valid sequences are kept;
// each byte that does not start a valid sequence (Latin-1, EUC-KR, …) is
// read as the Latin-1 code point of the same value, so the conversion is
// deterministic and never loses a byte's position.
func ValidUTF8(data []byte) string {
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

// CleanString makes any string safe to store: valid UTF-8 with NUL bytes
// removed.
func CleanString(s string) string {
	if !utf8.ValidString(s) {
		s = ValidUTF8([]byte(s))
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}

// UIDPart escapes a fragment so that the uid it goes into passes
// ValidateUID. A fragment that is already legal is returned as is;
// otherwise whitespace, control characters, '%' and backticks become %XX
// escapes and every ".." becomes "%2E%2E".
func UIDPart(s string) string {
	s = CleanString(s)
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

// ClampUID keeps a uid within MaxUIDLen: a longer one is cut on a
// rune boundary and ends with "~" and 16 hex digits of its SHA-256.
func ClampUID(uid string) string {
	if len(uid) <= MaxUIDLen {
		return uid
	}
	sum := sha256.Sum256([]byte(uid))
	suffix := "~" + hex.EncodeToString(sum[:8])
	cut := MaxUIDLen - len(suffix)
	for cut > 0 && !utf8.RuneStart(uid[cut]) {
		cut--
	}
	return uid[:cut] + suffix
}

// CodeUID returns code:<what>:<path>::<name> (what is "function" for
// functions and methods, "class" for classes), each part escaped (UIDPart)
// and the whole clamped (ClampUID), exactly as the extractors name
// declarations.
func CodeUID(what, path, name string) string {
	return ClampUID("code:" + what + ":" + UIDPart(path) + "::" + UIDPart(name))
}

// ExternalUID returns the uid of the code:external: stub named name ("*.m"
// for a method m on a receiver of unknown type), escaped and clamped.
func ExternalUID(name string) string { return ClampUID("code:external:" + UIDPart(name)) }

// SourceFileUID is FileUID of an extracted file's path, escaped and clamped
// exactly as the extractors name file nodes.
func SourceFileUID(path string) string { return ClampUID(FileUID(UIDPart(path))) }

// EntryUID returns entry:<kind>:<path>::<name> for an entry point declared
// in the file at path, kind one of the Entry* constants, each part escaped
// (UIDPart: a space becomes %20) and the whole clamped (ClampUID). Names by
// kind: http "<METHOD> <route>" ("ANY" when every method is served), cli
// the command's words from the program down ("cos index"), mcp_tool the
// tool's name, grpc the service's full name, event the subject, topic or
// event name, websocket the route or the handler's name, main and init
// the function's name.
func EntryUID(kind, path, name string) string {
	return ClampUID("entry:" + kind + ":" + UIDPart(path) + "::" + UIDPart(name))
}

// EntryLabel is the label of an entry point: "<kind> <name>" ("http GET
// /users", "cli cos index"), so a search for a handler's name does not
// find its entry point as an equal match.
func EntryLabel(kind, name string) string { return kind + " " + name }
