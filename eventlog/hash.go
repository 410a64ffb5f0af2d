package eventlog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"time"
)

// ZeroHash is the PrevHash of the first event and the Hash of the Head of
// an empty log: 64 zeros.
const ZeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

// EventHash computes the chain hash of ev from its fields and PrevHash (not
// from ev.Hash): SHA-256 over "cos-event-v1" and the length-prefixed fields
// seq, id, time (RFC 3339, nanoseconds, UTC), stream, revision, type,
// request_id, actor pid, actor host, actor client, data, prev_hash, as
// lowercase hex (doc.go, "Hash chain").
func EventHash(ev *Event) string {
	h := sha256.New()
	var lenbuf [binary.MaxVarintLen64]byte
	field := func(s string) {
		n := binary.PutUvarint(lenbuf[:], uint64(len(s)))
		h.Write(lenbuf[:n])
		_, _ = io.WriteString(h, s) // a hash.Hash never fails a write
	}
	h.Write([]byte("cos-event-v1"))
	field(strconv.FormatUint(ev.Seq, 10))
	field(ev.ID)
	field(ev.Time.UTC().Format(time.RFC3339Nano))
	field(ev.Stream)
	field(strconv.FormatUint(ev.Revision, 10))
	field(ev.Type)
	field(ev.RequestID)
	field(strconv.Itoa(ev.Actor.PID))
	field(ev.Actor.Host)
	field(ev.Actor.Client)
	// The payload is written as it is: a string of it would copy it.
	n := binary.PutUvarint(lenbuf[:], uint64(len(ev.Data)))
	h.Write(lenbuf[:n])
	h.Write(ev.Data)
	field(ev.PrevHash)
	return hex.EncodeToString(h.Sum(nil))
}

// VerifyEvent checks one link of the chain: that ev sits at seq, follows
// the event whose hash is prevHash (ZeroHash for seq 1), and that its Hash
// recomputes. It returns nil or an *IntegrityError naming seq.
func VerifyEvent(ev *Event, seq uint64, prevHash string) error {
	switch {
	case ev.Seq != seq:
		return &IntegrityError{Seq: seq, Reason: fmt.Sprintf("record holds seq %d", ev.Seq)}
	case ev.PrevHash != prevHash:
		return &IntegrityError{Seq: seq, Reason: fmt.Sprintf("prev_hash %s does not match the hash %s of seq %d", ev.PrevHash, prevHash, seq-1)}
	}
	if got := EventHash(ev); got != ev.Hash {
		return &IntegrityError{Seq: seq, Reason: fmt.Sprintf("hash %s does not match the recomputed %s", ev.Hash, got)}
	}
	return nil
}
