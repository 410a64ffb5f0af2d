package natslog

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A cos stream name becomes one subject token: bytes outside
// [A-Za-z0-9:_-] — '.', '*', '>', whitespace, '%', non-printables and every
// byte of a multi-byte UTF-8 character — are written as '%' and two
// upper-case hex digits. The encoding is canonical (a token decodes only
// if re-encoding gives it back), so two cos streams never share a subject
// and the subject's last sequence is the cos stream's last event.

// subjectPrefix returns "cos.<ns>.log." for the JetStream stream name.
func subjectPrefix(jsStream string) string {
	return "cos." + strings.ToLower(jsStream) + ".log."
}

// subjectFilter is the one subject filter of a cos stream: every cos
// stream's subject and nothing else.
func subjectFilter(jsStream string) string { return subjectPrefix(jsStream) + ">" }

func tokenSafe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ':' || c == '_' || c == '-'
}

const hexDigits = "0123456789ABCDEF"

// EncodeToken returns the subject token of a cos stream name (see above).
// The empty name encodes as "%" followed by nothing — never produced for a
// valid stream — so that the token is never empty.
func EncodeToken(name string) string {
	if name == "" {
		return "%"
	}
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		if tokenSafe(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// DecodeToken returns the cos stream name of a subject token, or an error
// when tok is not a canonical encoding.
func DecodeToken(tok string) (string, error) {
	if tok == "%" {
		return "", nil
	}
	if tok == "" {
		return "", fmt.Errorf("empty subject token")
	}
	out := make([]byte, 0, len(tok))
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if tokenSafe(c) {
			out = append(out, c)
			continue
		}
		if c != '%' || i+2 >= len(tok) {
			_, n := utf8.DecodeRuneInString(tok[i:])
			return "", fmt.Errorf("subject token %q: %q at byte offset %d is not allowed", tok, tok[i:i+n], i)
		}
		hi, lo := strings.IndexByte(hexDigits, tok[i+1]), strings.IndexByte(hexDigits, tok[i+2])
		if hi < 0 || lo < 0 {
			return "", fmt.Errorf("subject token %q: %q at %d is not an escape", tok, tok[i:i+3], i)
		}
		d := byte(hi<<4 | lo)
		if tokenSafe(d) {
			return "", fmt.Errorf("subject token %q: %q at %d escapes a byte that needs none", tok, tok[i:i+3], i)
		}
		out = append(out, d)
		i += 2
	}
	return string(out), nil
}

// subjectOf returns the subject of cos stream name in jsStream.
func subjectOf(jsStream, name string) string { return subjectPrefix(jsStream) + EncodeToken(name) }

// streamOfSubject returns the cos stream a subject of jsStream names.
func streamOfSubject(jsStream, subject string) (string, error) {
	p := subjectPrefix(jsStream)
	if !strings.HasPrefix(subject, p) || strings.Contains(subject[len(p):], ".") {
		return "", fmt.Errorf("subject %q is not a cos stream subject (%s<stream>)", subject, p)
	}
	return DecodeToken(subject[len(p):])
}
