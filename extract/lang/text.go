package lang

import (
	"bytes"

	"github.com/cos-dev/cos/graph"
)

// SniffLen is how many leading bytes are checked for a NUL to call a file
// binary (the heuristic git and grep use).
const SniffLen = 8000

// IsBinary reports whether data looks binary: a NUL byte in its first
// sniffLen bytes.
func IsBinary(data []byte) bool {
	if len(data) > SniffLen {
		data = data[:SniffLen]
	}
	for _, b := range data {
		if b == 0 {
			return true
		}
	}
	return false
}

// The text and uid helpers below are graph's (the uid scheme lives there);
// the short names keep the extractors readable.

func ValidUTF8(data []byte) string { return graph.ValidUTF8(data) }
func CleanString(s string) string  { return graph.CleanString(s) }
func UIDPart(s string) string      { return graph.UIDPart(s) }
func ClampUID(uid string) string   { return graph.ClampUID(uid) }

// SourceText is what parsers see: data as valid UTF-8 (see ValidUTF8) with
// NUL bytes turned into spaces, so that lines and most offsets are kept and
// no parser stops at a NUL.
func SourceText(data []byte) []byte {
	s := []byte(ValidUTF8(data)) // a copy: data is never modified
	if bytes.IndexByte(s, 0) >= 0 {
		for i, c := range s {
			if c == 0 {
				s[i] = ' '
			}
		}
	}
	return s
}

// CodeUID builds code:<what>:<path>::<name>.
func CodeUID(what, p, name string) string { return graph.CodeUID(what, p, name) }

// ExternalUID builds the uid of an unresolved target's stub.
func ExternalUID(name string) string { return graph.ExternalUID(name) }
