package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/cos-dev/cos/eventlog/store"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
	"github.com/spf13/cobra"
)

// migrateReport is what `cos migrate` prints.
type migrateReport struct {
	From   string        `json:"from"`
	To     string        `json:"to"`
	Events uint64        `json:"events"`
	Head   eventlog.Head `json:"head"`
	// Verified is the number of events whose chain the target verified.
	Verified uint64 `json:"verified"`
	// Receipts is the number of request-id receipts the target keeps,
	// each the source's (same intent, same receipt); ExpiredReceipts the
	// source's receipts past the receipt window, which the target
	// dropped as the source would at its next write.
	Receipts        int `json:"receipts"`
	ExpiredReceipts int `json:"expired_receipts,omitempty"`
}

func (a *app) migrateCommand() *cobra.Command {
	var to string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "migrate --to nats://HOST:PORT[/STREAM] | --to FILE",
		Short: "Copy the event log into an empty NATS JetStream stream or a new log file, verbatim, and verify the copy",
		Long: "Copy every event of the log (the state folder's file, or --store) into --to: an empty JetStream stream " +
			"(nats://HOST:PORT[,nats://HOST:PORT…][/STREAM], created when missing) or a new bbolt file. The copy keeps every " +
			"seq, id, time, actor, request id and hash, so its hash chain is the same chain: at the end the target is " +
			"verified and its head hash compared with the source's. The receipts of request ids are copied too and compared after " +
			"the copy, so a retry of a request made before the migration replays on the target instead of writing again. Stop the servers writing to the source first: events committed during " +
			"the copy are not in the target, and the command fails saying how many. A target that is not empty, or a file that exists, is " +
			"refused and left as it is. Progress goes to stderr. Then run the servers with --store pointing at the target.",
		Example: "  cos migrate --to nats://127.0.0.1:4222,nats://127.0.0.1:4223,nats://127.0.0.1:4224/COS\n" +
			"  cos --store nats://127.0.0.1:4222/COS migrate --to /backups/events.db",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to == "" {
				return usageError("--to is required: nats://HOST:PORT[/STREAM] or the path of a new log file")
			}
			from, err := state.ParseStore(a.stateDir, a.store)
			if err != nil {
				return usageError("--store %q: %v", a.store, err)
			}
			target, err := state.ParseStore(a.stateDir, to)
			if err != nil {
				return usageError("--to %q: %v", to, err)
			}
			if target.String() == from.String() {
				return usageError("--to %s is the log being copied; name another stream or a new file", target)
			}
			rep, err := a.migrate(cmd.Context(), from, target)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(a.io.Out)
				enc.SetEscapeHTML(false)
				return enc.Encode(rep)
			}
			_, err = fmt.Fprintf(a.io.Out, "migrated %s and %d receipts from %s to %s; verified, head %d %s\n", events(rep.Events), rep.Receipts, rep.From, rep.To, rep.Head.Seq, rep.Head.Hash)
			return err
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the target: nats://HOST:PORT[,nats://HOST:PORT…][/STREAM] (an empty stream) or a new log file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// upTo reads a log only up to seq last: the head when the copy began.
type upTo struct {
	l    state.Log
	last uint64
}

func (u upTo) Read(ctx context.Context, from uint64, fn func(eventlog.Event) error) error {
	return u.l.Read(ctx, from, func(ev eventlog.Event) error {
		if ev.Seq > u.last {
			return eventlog.ErrStop
		}
		return fn(ev)
	})
}

// Receipts lists the receipts of the log whose events lie up to u.last.
func (u upTo) Receipts(ctx context.Context, fn func(eventlog.StoredReceipt) error) error {
	rl, ok := u.l.(eventlog.ReceiptLister)
	if !ok {
		return fmt.Errorf("the log %T cannot list its receipts", u.l)
	}
	return rl.Receipts(ctx, func(r eventlog.StoredReceipt) error {
		if r.Receipt.LastSeq > u.last {
			return nil
		}
		return fn(r)
	})
}

// listReceipts returns the receipts l keeps, by request id.
func listReceipts(ctx context.Context, l eventlog.ReceiptLister) (map[string]eventlog.StoredReceipt, error) {
	out := map[string]eventlog.StoredReceipt{}
	err := l.Receipts(ctx, func(r eventlog.StoredReceipt) error {
		out[r.RequestID] = r
		return nil
	})
	return out, err
}

// compareReceipts checks the target's receipts against the source's: each
// of the target's is the source's (same intent, same receipt), and each
// of the source's is in the target unless it is past the receipt window
// at now (older than eventlog.DefaultReceiptMaxAge, or not among the
// newest DefaultReceiptMaxCount), which the target may drop as the source
// would at its next write. It returns the number kept and expired, or a
// description of the first difference.
func compareReceipts(src, dst map[string]eventlog.StoredReceipt, now time.Time) (kept, expired int, diff string) {
	for id, d := range dst {
		s, ok := src[id]
		if !ok {
			return 0, 0, fmt.Sprintf("the target holds a receipt of request_id %q the source does not", id)
		}
		if s.Intent != d.Intent || !sameReceipt(s.Receipt, d.Receipt) {
			return 0, 0, fmt.Sprintf("the receipt of request_id %q differs: source %+v, target %+v", id, s.Receipt, d.Receipt)
		}
	}
	newer := 0 // source receipts newer than the one at hand, by first seq
	seqs := make([]uint64, 0, len(src))
	for _, s := range src {
		seqs = append(seqs, s.Receipt.FirstSeq)
	}
	slices.Sort(seqs)
	for id, s := range src {
		if _, ok := dst[id]; ok {
			continue
		}
		i, _ := slices.BinarySearch(seqs, s.Receipt.FirstSeq)
		newer = len(seqs) - 1 - i
		if now.Sub(s.Receipt.Time) > eventlog.DefaultReceiptMaxAge || newer >= eventlog.DefaultReceiptMaxCount {
			expired++
			continue
		}
		return 0, 0, fmt.Sprintf("the receipt of request_id %q (seq %d) was not copied", id, s.Receipt.FirstSeq)
	}
	return len(dst), expired, ""
}

// sameReceipt compares two receipts field by field, times as instants.
func sameReceipt(a, b eventlog.Receipt) bool {
	return a.Stream == b.Stream && a.FirstSeq == b.FirstSeq && a.LastSeq == b.LastSeq && a.Revision == b.Revision &&
		slices.Equal(a.IDs, b.IDs) && slices.Equal(a.Hashes, b.Hashes) && a.Time.Equal(b.Time)
}

// migrate copies from into target and verifies the copy.
func (a *app) migrate(ctx context.Context, from, target state.Store) (migrateReport, error) {
	rep := migrateReport{From: from.String(), To: target.String()}
	src, err := state.OpenLog(ctx, a.stateDir, state.LogOptions{ReadOnly: true, Store: a.store})
	if err != nil {
		return rep, failure(err)
	}
	defer func() { _ = src.Close(context.Background()) }()
	srcHead, err := src.Head(ctx)
	if err != nil {
		return rep, failure(err)
	}
	progress := a.migrateProgress(a.io.Err, srcHead.Seq)
	head, err := store.Import(ctx, target, upTo{src, srcHead.Seq}, progress)
	switch {
	case errors.Is(err, store.ErrNotEmpty):
		return rep, &exitError{code: ExitError, err: fmt.Errorf("E_ARGUMENT: nothing copied: %v; cos migrate fills an empty stream only (name another with nats://HOST:PORT/STREAM)", err)}
	case errors.Is(err, store.ErrDestExists):
		return rep, &exitError{code: ExitError, err: fmt.Errorf("E_ARGUMENT: nothing copied: %s already exists; cos migrate writes a new file only, name another", target.Path)}
	case err != nil:
		return rep, &exitError{code: ExitError, err: fmt.Errorf("migrate to %s: %d of %d events copied, then: %v%s", target, head.Seq, srcHead.Seq, tools.ToEnvelopeError(err).WithCause(nil), partialCopyAdvice(target, head.Seq))}
	}
	rep.Events, rep.Head = head.Seq, head
	// Verify the target as the servers will open it.
	dst, err := state.OpenLog(ctx, a.stateDir, state.LogOptions{ReadOnly: true, Store: target.String()})
	if err != nil {
		return rep, failure(err)
	}
	defer func() { _ = dst.Close(context.Background()) }()
	if rep.Verified, err = dst.Verify(ctx); err != nil {
		return rep, &exitError{code: ExitError, err: fmt.Errorf("E_INTEGRITY: the copy in %s does not verify after %d events: %v%s", target, rep.Verified, err, partialCopyAdvice(target, head.Seq))}
	}
	dstHead, err := dst.Head(ctx)
	if err != nil {
		return rep, failure(err)
	}
	if dstHead != srcHead || rep.Verified != srcHead.Seq {
		return rep, &exitError{code: ExitError, err: fmt.Errorf("E_INTEGRITY: the copy in %s ends at seq %d hash %s (%d verified), the source at seq %d hash %s%s", target, dstHead.Seq, dstHead.Hash, rep.Verified, srcHead.Seq, srcHead.Hash, partialCopyAdvice(target, dstHead.Seq))}
	}
	// The receipts: a retry of a request made before the copy must replay
	// on the target.
	srcReceipts, err := listReceipts(ctx, upTo{src, srcHead.Seq})
	if err != nil {
		return rep, failure(err)
	}
	dl, ok := dst.(eventlog.ReceiptLister)
	if !ok {
		return rep, failure(fmt.Errorf("the log %T cannot list its receipts", dst))
	}
	dstReceipts, err := listReceipts(ctx, dl)
	if err != nil {
		return rep, failure(err)
	}
	var diff string
	if rep.Receipts, rep.ExpiredReceipts, diff = compareReceipts(srcReceipts, dstReceipts, time.Now()); diff != "" {
		return rep, &exitError{code: ExitError, err: fmt.Errorf("E_INTEGRITY: the copy in %s holds the events but not the receipts: %s%s", target, diff, partialCopyAdvice(target, head.Seq))}
	}
	// A copy that misses events committed meanwhile is not the log: the
	// servers switched to it would lose acknowledged writes. The copy is
	// kept (it verifies), but the command fails.
	if now, err := src.Head(ctx); err == nil && now.Seq > srcHead.Seq {
		return rep, &exitError{code: ExitError, err: fmt.Errorf("STALE_READ: %d events were committed to %s during the copy and are not in %s (which holds the %d events up to seq %d, verified); "+
			"stop the servers writing to the source and migrate again to a new target%s", now.Seq-srcHead.Seq, from, target, rep.Verified, srcHead.Seq, partialCopyAdvice(target, rep.Verified))}
	}
	// Writes after the copy are not in it either: name the processes still
	// using the source folder, as cos restore does, before anyone switches.
	if !from.IsNATS() && from.Path == filepath.Join(a.stateDir, state.LogFile) {
		if held, err := state.FolderInUse(a.stateDir); err == nil && len(held) > 0 {
			busy := &state.BusyError{Dir: a.stateDir, Holders: held}
			fmt.Fprintf(a.io.Err, "cos: warning: the copy holds the log up to seq %d, but %s is still in use (%s); what they write from now on is not in %s: stop them before you point them at the copy, or migrate again\n",
				srcHead.Seq, a.stateDir, busy.HoldersText(), target)
		}
	}
	return rep, nil
}

// migrateProgress returns a progress function printing "copied N of M
// events" to w at most twice a second, and the last count.
func (a *app) migrateProgress(w io.Writer, total uint64) func(uint64) {
	var last time.Time
	return func(n uint64) {
		if n != total && time.Since(last) < 500*time.Millisecond {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "cos migrate: copied %d of %d events\n", n, total)
	}
}

// partialCopyAdvice is what a failed migrate adds about the target it
// left behind: a stream refuses purges and a second import refuses a
// stream that is not empty, so a stream holding part of a copy can only
// be removed as a whole (JetStream allows deleting a stream; DenyDelete
// guards its messages) or left for another name. Empty when nothing was
// copied into a stream.
func partialCopyAdvice(target state.Store, copied uint64) string {
	if !target.IsNATS() || copied == 0 {
		return ""
	}
	name := target.Stream
	if name == "" {
		name = natslog.DefaultStream
	}
	return fmt.Sprintf(". The stream %s keeps the %d events copied and refuses purges, so no migrate can fill it again, and no cos "+
		"should use it: remove it with `nats stream rm %s` (nats CLI; this deletes the stream, not the source) and migrate again, "+
		"or migrate to another stream name", name, copied, name)
}
