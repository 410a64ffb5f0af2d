package extract

import (
	"bytes"

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

// The text and uid helpers below are graph's (the uid scheme lives there);
// the short names keep the extractors readable.

func validUTF8(data []byte) string { return graph.ValidUTF8(data) }
func cleanString(s string) string  { return graph.CleanString(s) }
func uidPart(s string) string      { return graph.UIDPart(s) }
func clampUID(uid string) string   { return graph.ClampUID(uid) }

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
