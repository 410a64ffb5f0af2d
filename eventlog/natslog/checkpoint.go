package natslog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// A checkpoint keeps a handle's model — every cos stream's revision, last
// seq and hash, the allocation counters and the receipts of the window —
// in a file of the state folder (Options.Checkpoint), with the seq and
// hash of the event it was built up to, so that the next Open reads the
// stream only from there instead of from seq 1.
//
// File layout: checkpointMagic, the SHA-256 of the rest (32 bytes), then
// checkpointData as gob. It is written to a temporary file in the same
// folder and renamed into place, without fsync: a file torn by a crash
// fails its checksum and is ignored, as is one of another format, another
// stream, a narrower receipt window, or one whose event at its seq is not
// (or no longer) the stream's — Open then reads the whole stream, as
// without a checkpoint. The file is trusted as the state folder is: the
// links of the chain up to its seq are not checked again at Open (Verify
// still walks them all).
const checkpointMagic = "cos-natslog-checkpoint 1\n"

// checkpointEvery is how many events an Open that read more than that
// past its checkpoint writes a new one at once, rather than only at Close
// (a long-running process, or one that is killed, then leaves a recent
// one).
const checkpointEvery = 10_000

type checkpointData struct {
	Stream          string // the JetStream stream
	Seq             uint64
	Hash            string
	ReceiptWindow   time.Duration
	ReceiptMaxCount int
	Streams         []checkpointStream
	Counters        map[string]uint64
	Receipts        []checkpointReceipt
}

type checkpointStream struct {
	Name              string
	Revision, LastSeq uint64
	Hash              string
}

type checkpointReceipt struct {
	ID                          string
	Intent                      [32]byte
	Stream                      string
	FirstSeq, LastSeq, Revision uint64
	IDs, Hashes                 []string
	Time                        time.Time
}

// encodeCheckpoint returns the checkpoint file of m. Called under smu; m
// must be whole (no request half read, not broken).
func (l *Log) encodeCheckpoint() ([]byte, error) {
	m := l.m
	d := checkpointData{
		Stream: l.opts.Stream, Seq: m.head.Seq, Hash: m.head.Hash,
		ReceiptWindow: l.opts.ReceiptWindow, ReceiptMaxCount: l.opts.ReceiptMaxCount,
		Streams: make([]checkpointStream, 0, len(m.streams)), Counters: m.counters,
	}
	for name, s := range m.streams {
		d.Streams = append(d.Streams, checkpointStream{Name: name, Revision: s.revision, LastSeq: s.lastSeq, Hash: s.hash})
	}
	for _, r := range m.receipts.list() {
		rec := r.Receipt
		d.Receipts = append(d.Receipts, checkpointReceipt{ID: r.RequestID, Intent: r.Intent, Stream: rec.Stream,
			FirstSeq: rec.FirstSeq, LastSeq: rec.LastSeq, Revision: rec.Revision, IDs: rec.IDs, Hashes: rec.Hashes, Time: rec.Time})
	}
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(&d); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body.Bytes())
	out := make([]byte, 0, len(checkpointMagic)+len(sum)+body.Len())
	out = append(out, checkpointMagic...)
	out = append(out, sum[:]...)
	return append(out, body.Bytes()...), nil
}

// decodeCheckpoint reads a checkpoint file; an error says why it is not
// usable.
func decodeCheckpoint(raw []byte) (checkpointData, error) {
	var d checkpointData
	if !bytes.HasPrefix(raw, []byte(checkpointMagic)) || len(raw) < len(checkpointMagic)+sha256.Size {
		return d, errors.New("not a checkpoint of this format")
	}
	raw = raw[len(checkpointMagic):]
	if sum := sha256.Sum256(raw[sha256.Size:]); !bytes.Equal(sum[:], raw[:sha256.Size]) {
		return d, errors.New("checksum mismatch (a torn write?)")
	}
	if err := gob.NewDecoder(bytes.NewReader(raw[sha256.Size:])).Decode(&d); err != nil {
		return d, err
	}
	return d, nil
}

// loadCheckpoint installs the checkpoint of Options.Checkpoint in the
// model when it is usable: same stream, a receipt window at least as wide
// as this handle's, and the stream's event at its seq has its hash.
// Called under smu at Open, on an empty model. It reports why a file that
// exists was not used to the logger, and returns the seq it installed (0
// for none).
func (l *Log) loadCheckpoint(ctx context.Context) uint64 {
	path := l.opts.Checkpoint
	if path == "" || l.stream == nil {
		return 0
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			l.opts.Logger.Warn("eventlog: the log checkpoint cannot be read; reading the whole stream", "path", path, "err", err)
		}
		return 0
	}
	skip := func(why string) uint64 {
		l.opts.Logger.Info("eventlog: the log checkpoint is not used; reading the whole stream", "path", path, "reason", why)
		return 0
	}
	d, err := decodeCheckpoint(raw)
	switch {
	case err != nil:
		return skip(err.Error())
	case d.Stream != l.opts.Stream:
		return skip(fmt.Sprintf("it is of stream %s", d.Stream))
	case d.ReceiptWindow < l.opts.ReceiptWindow || d.ReceiptMaxCount < l.opts.ReceiptMaxCount:
		return skip("it keeps a narrower receipt window")
	case d.Seq == 0:
		return 0
	}
	last, err := l.streamLastSeq(ctx, l.stream)
	if err != nil {
		return skip(err.Error())
	}
	if last < d.Seq {
		return skip(fmt.Sprintf("the stream ends at seq %d, before the checkpoint's %d", last, d.Seq))
	}
	var hash string
	err = l.fetch(ctx, l.stream, d.Seq, d.Seq, func(m rawMsg) error {
		ev, _, err := decodeMessage(l.opts.Stream, m.subject, m.seq, m.header, m.data)
		hash = ev.Hash
		return err
	})
	if err != nil || hash != d.Hash {
		return skip(fmt.Sprintf("the stream's event at seq %d is not the one it was built to (%v)", d.Seq, err))
	}
	m := newModel(l.opts)
	m.head.Seq, m.head.Hash = d.Seq, d.Hash
	for _, s := range d.Streams {
		m.streams[s.Name] = streamState{revision: s.Revision, lastSeq: s.LastSeq, hash: s.Hash}
	}
	for p, n := range d.Counters {
		m.counters[p] = n
	}
	for _, r := range d.Receipts {
		m.receipts.put(r.ID, receiptEntry{intent: r.Intent, receipt: eventlogReceipt(r)})
	}
	m.receipts.prune(l.opts.Now())
	l.m = m
	l.publishHead()
	return d.Seq
}

// saveCheckpoint writes the model to Options.Checkpoint when it is whole
// and past the seq of the last checkpoint loaded or written. Called under
// smu. A failure is logged: the checkpoint only saves time.
func (l *Log) saveCheckpoint() {
	path := l.opts.Checkpoint
	if path == "" || l.m.broken != nil || l.m.receipts.pending != nil || l.m.head.Seq <= l.checkpointSeq {
		return
	}
	raw, err := l.encodeCheckpoint()
	if err == nil {
		err = writeReplace(path, raw)
	}
	if err != nil {
		l.opts.Logger.Warn("eventlog: the log checkpoint was not written", "path", path, "err", err)
		return
	}
	l.checkpointSeq = l.m.head.Seq
}

// writeReplace writes raw to a temporary file beside path and renames it
// over path. The folder must exist.
func writeReplace(path string, raw []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(raw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

func eventlogReceipt(r checkpointReceipt) eventlog.Receipt {
	return eventlog.Receipt{Stream: r.Stream, FirstSeq: r.FirstSeq, LastSeq: r.LastSeq, Revision: r.Revision, IDs: r.IDs, Hashes: r.Hashes, Time: r.Time}
}

// VerifyHashes checks the hash chain as the handle's model holds it: it
// reads what other handles committed since (checking each link, as every
// catch-up does) and returns the number of events the model verified, or
// the *eventlog.IntegrityError of the first message that did not follow.
// The links up to the checkpoint the handle started from were checked by
// the process that wrote it, so unlike Verify it does not read the
// stream from seq 1: it is the start-up check of a state folder, which
// trusts its own files (Verify, `cos verify`, walks everything).
func (l *Log) VerifyHashes(ctx context.Context) (uint64, error) {
	if err := l.usable(ctx); err != nil {
		return 0, err
	}
	s, err := l.currentStream(ctx)
	if err != nil {
		return 0, err
	}
	if s == nil {
		return 0, noStream(l.where, l.opts.Stream)
	}
	l.smu.Lock()
	started := l.startSeq
	l.smu.Unlock()
	if started == 0 {
		return l.Verify(ctx) // the model was built from seq 1: walk it all
	}
	l.smu.Lock()
	defer l.smu.Unlock()
	if err := l.catchUpLocked(ctx); err != nil {
		if ie := (*eventlog.IntegrityError)(nil); errors.As(err, &ie) {
			return ie.Seq - 1, err
		}
		return 0, err
	}
	return l.m.head.Seq, nil
}
