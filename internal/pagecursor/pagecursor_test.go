package pagecursor

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
)

func TestCursor_RoundTrip(t *testing.T) {
	c := Cursor{Seq: 1<<40 + 7, Query: Digest("a", "b"), After: 123}
	got, err := Decode(c.Encode())
	if err != nil || got != c {
		t.Fatalf("Decode(Encode(%+v)) = %+v, %v", c, got, err)
	}
	if n := len(c.Encode()); n != 39 {
		t.Fatalf("cursor is %d characters, want 39", n)
	}
}

func TestDecode_Malformed(t *testing.T) {
	good := Cursor{Seq: 3, After: 9}.Encode()
	edited := []byte(good)
	edited[5] = map[bool]byte{true: 'B', false: 'A'}[edited[5] == 'A']
	var v2 [rawLen]byte
	v2[0] = 2
	binary.BigEndian.PutUint32(v2[25:], crc32.ChecksumIEEE(v2[:25]))
	for _, tc := range []struct{ text, reason string }{
		{strings.Repeat("A", MaxLen+1), "too long"},
		{"not a cursor!", "not base64url"},
		{good[:20], "15 bytes, want 29"},
		{string(edited), "checksum mismatch"},
		{encoding.EncodeToString(v2[:]), "unknown version 2"},
	} {
		_, err := Decode(tc.text)
		var me *MalformedError
		if !errors.As(err, &me) || me.Reason != tc.reason {
			t.Errorf("Decode(%q) = %v, want reason %q", tc.text, err, tc.reason)
		}
	}
}

func TestDigest_SeparatesParts(t *testing.T) {
	if Digest("ab", "c") == Digest("a", "bc") {
		t.Fatal(`Digest("ab", "c") equals Digest("a", "bc")`)
	}
}
