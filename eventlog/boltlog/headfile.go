package boltlog

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"os"

	"github.com/cos-dev/cos/eventlog"
)

// The head file ("<db>.head") lets Head answer without opening the database:
// one fixed 48-byte record rewritten in place after every commit, while the
// writer still holds the exclusive lock, so it never goes backwards:
//
//	0  4  magic "COSH"
//	4  8  seq, big-endian
//	12 32 hash of the event at seq (raw bytes; zeros when seq is 0)
//	44 4  CRC-32C of bytes 0–44
//
// It is a hint: a torn or missing record makes Head fall back to the
// database, and Open rewrites it from the database.
const headRecordSize = 48

var headMagic = [4]byte{'C', 'O', 'S', 'H'}

// errHeadFile is returned by readHeadFile when the record is missing or torn.
var errHeadFile = errors.New("head file unreadable")

func encodeHead(h eventlog.Head) [headRecordSize]byte {
	var b [headRecordSize]byte
	copy(b[0:4], headMagic[:])
	binary.BigEndian.PutUint64(b[4:12], h.Seq)
	if raw, err := hex.DecodeString(h.Hash); err == nil && len(raw) == 32 {
		copy(b[12:44], raw)
	}
	binary.BigEndian.PutUint32(b[44:48], crc32.Checksum(b[:44], castagnoli))
	return b
}

func decodeHead(b []byte) (eventlog.Head, error) {
	if len(b) != headRecordSize || [4]byte(b[0:4]) != headMagic ||
		crc32.Checksum(b[:44], castagnoli) != binary.BigEndian.Uint32(b[44:48]) {
		return eventlog.Head{}, errHeadFile
	}
	h := eventlog.Head{Seq: binary.BigEndian.Uint64(b[4:12]), Hash: hex.EncodeToString(b[12:44])}
	if h.Seq == 0 {
		h.Hash = eventlog.ZeroHash
	}
	return h, nil
}

func writeHeadFile(f *os.File, h eventlog.Head) error {
	b := encodeHead(h)
	_, err := f.WriteAt(b[:], 0)
	return err
}

func readHeadFile(f *os.File) (eventlog.Head, error) {
	var b [headRecordSize]byte
	n, err := f.ReadAt(b[:], 0)
	if err != nil && !(errors.Is(err, io.EOF) && n == headRecordSize) {
		return eventlog.Head{}, errHeadFile
	}
	return decodeHead(b[:])
}
