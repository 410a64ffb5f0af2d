package boltlog

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"

	"github.com/cos-dev/cos/eventlog"
)

// FormatVersion is the on-disk format written by this package (doc.go).
const FormatVersion = 1

// recordVersion is the first byte of every event record.
const recordVersion byte = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// seqKey encodes a seq as an 8-byte big-endian key, so keys sort by seq.
func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

// encodeRecord frames an event: version byte, CRC-32C of the JSON, JSON.
func encodeRecord(ev *eventlog.Event) ([]byte, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 5+len(body))
	out[0] = recordVersion
	binary.BigEndian.PutUint32(out[1:5], crc32.Checksum(body, castagnoli))
	copy(out[5:], body)
	return out, nil
}

// DecodeRecord decodes one framed event record as stored in the events
// bucket. It checks the version byte and the CRC but not the hash chain.
func DecodeRecord(b []byte) (eventlog.Event, error) {
	var ev eventlog.Event
	if len(b) < 5 {
		return ev, fmt.Errorf("record of %d bytes is shorter than its 5-byte header", len(b))
	}
	if b[0] != recordVersion {
		return ev, fmt.Errorf("record version %d, want %d", b[0], recordVersion)
	}
	body := b[5:]
	if got, want := crc32.Checksum(body, castagnoli), binary.BigEndian.Uint32(b[1:5]); got != want {
		return ev, fmt.Errorf("record checksum %08x, want %08x", got, want)
	}
	// json.Unmarshal rejects trailing data and is ~2× a Decoder here; the
	// version byte and the CRC already guard the format.
	if err := json.Unmarshal(body, &ev); err != nil {
		return ev, fmt.Errorf("decode record: %w", err)
	}
	return ev, nil
}
