package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/store"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
	"github.com/spf13/cobra"
)

func (a *app) logCommand() *cobra.Command {
	var (
		from, to    uint64
		stream, typ string
		asJSON      bool
	)
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Print events of the log (filter with --from/--to/--stream/--type)",
		Long: "Print events of the log in seq order. --type takes an exact type or a prefix ending in \".*\" " +
			"(e.g. \"task.*\"). With --json each event is one JSON line.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to != 0 && to < from {
				return usageError("--to %d is before --from %d", to, from)
			}
			var types []eventlog.TypePattern
			if typ != "" {
				p, ok := eventlog.ParseTypePattern(typ)
				if !ok {
					return usageError("--type %q: want %s", typ, eventlog.TypePatternLegal)
				}
				types = append(types, p)
			}
			l, err := a.openLog(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = l.Close(context.Background()) }()
			enc := json.NewEncoder(a.io.Out)
			enc.SetEscapeHTML(false)
			err = l.Read(cmd.Context(), from, func(ev eventlog.Event) error {
				if to != 0 && ev.Seq > to {
					return eventlog.ErrStop
				}
				if (stream != "" && ev.Stream != stream) || !eventlog.MatchAny(types, ev.Type) {
					return nil
				}
				if asJSON {
					return enc.Encode(ev)
				}
				_, err := fmt.Fprintf(a.io.Out, "%d\t%s\t%s@%d\t%s\t%s\n", ev.Seq,
					ev.Time.Format("2006-01-02T15:04:05.000Z"), ev.Stream, ev.Revision, ev.Type, clip(string(ev.Data), 160))
				return err
			})
			if err != nil {
				return failure(err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&from, "from", 0, "first seq to print")
	f.Uint64Var(&to, "to", 0, "last seq to print (0: to the end)")
	f.StringVar(&stream, "stream", "", "only events of this stream")
	f.StringVar(&typ, "type", "", `only events of this type, or of a prefix ending in ".*"`)
	f.BoolVar(&asJSON, "json", false, "print JSON lines")
	cmd.AddCommand(a.logAppendCommand(), a.logHeadCommand(), a.logInitCommand())
	return cmd
}

// clip shortens s to about n bytes without splitting a rune.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func (a *app) logAppendCommand() *cobra.Command {
	var stream, typ, data, requestID, expect, expectedHash string
	cmd := &cobra.Command{
		Use:   "append --stream S --type T --data JSON [--request-id ID] [--expect-revision N|none]",
		Short: "Append one event and print its receipt as JSON",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req := eventlog.AppendRequest{
				Stream:       stream,
				Events:       []eventlog.Payload{{Type: typ, Data: json.RawMessage(data)}},
				RequestID:    requestID,
				ExpectedHash: expectedHash,
			}
			if cmd.Flags().Changed("request-id") {
				if err := eventlog.ValidateRequestID(requestID); err != nil {
					return failure(err)
				}
			}
			// A check that was given must check something: an empty value
			// is refused, as an empty If-Match is, rather than read as no
			// check at all (a script whose variable came out empty would
			// otherwise write without the guard it asked for).
			for _, name := range []string{"expect-revision", "expected-hash"} {
				if v, _ := cmd.Flags().GetString(name); cmd.Flags().Changed(name) && strings.TrimSpace(v) == "" {
					return usageError("--%s is empty: give the value to check (drop the flag to append without that check)", name)
				}
			}
			switch {
			case expect == "":
			case expect == "none":
				req.Expect = eventlog.NoStream()
			default:
				n, err := strconv.ParseUint(expect, 10, 64)
				if err != nil {
					return usageError(`--expect-revision %q: want a revision number or "none"`, expect)
				}
				req.Expect = eventlog.AtRevision(n)
			}
			l, err := a.openLog(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer func() { _ = l.Close(context.Background()) }()
			// The checks every other write makes: the state folder has not
			// seen more of the log than it holds, and its chain verifies.
			logger := a.stderrLogger(slog.LevelWarn)
			if err := state.CheckLogWritable(cmd.Context(), a.stateDir, a.store, l, logger); err != nil {
				return failure(err)
			}
			rec, err := state.AppendOne(cmd.Context(), l, req)
			if err == nil && len(rec.Hashes) > 0 {
				state.MarkLogSeen(a.stateDir, a.store, eventlog.Head{Seq: rec.LastSeq, Hash: rec.Hashes[len(rec.Hashes)-1]}, logger)
			}
			if errors.Is(err, eventlog.ErrCommitUnknown) {
				rid := tools.RequestIDNone
				if requestID != "" {
					rid = tools.RequestIDSent
				}
				return &exitError{code: ExitError, err: tools.CommitUnknownError(err, rid).WithCause(nil)}
			}
			if err != nil {
				return failure(err)
			}
			enc := json.NewEncoder(a.io.Out)
			enc.SetEscapeHTML(false)
			return enc.Encode(rec)
		},
	}
	f := cmd.Flags()
	f.StringVar(&stream, "stream", "", "target stream, e.g. task:TASK-001 (required)")
	f.StringVar(&typ, "type", "", "event type shaped like area.verb_noun, e.g. task.updated (required)")
	f.StringVar(&data, "data", "", "event data as JSON (required)")
	f.StringVar(&requestID, "request-id", "", "idempotency key, 1–128 characters: a resend with the same intent replays the receipt")
	f.StringVar(&expect, "expect-revision", "", `expected stream revision, or "none" for a stream that must not exist yet`)
	f.StringVar(&expectedHash, "expected-hash", "", "expected hash of the stream's last event")
	for _, name := range []string{"stream", "type", "data"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

func (a *app) logHeadCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "head",
		Short: "Print the seq of the last event (0 for an empty log)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.openLog(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = l.Close(context.Background()) }()
			h, err := l.Head(cmd.Context())
			if err != nil {
				return failure(err)
			}
			if asJSON {
				return json.NewEncoder(a.io.Out).Encode(h)
			}
			_, err = fmt.Fprintln(a.io.Out, h.Seq)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {seq, hash} as JSON")
	return cmd
}

func (a *app) verifyCommand() *cobra.Command {
	var salvage string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify [--salvage NEW_FILE]",
		Short: `Walk the hash chain: print "ok N events" or name the first bad seq (exit 1)`,
		Long: "Walk the event log's hash chain from seq 1 to the head: print \"ok N events\", or name the first bad seq " +
			"and exit 1. With --salvage NEW_FILE, also write a new log holding every event that still verifies " +
			"(renumbered so its chain verifies) and list exactly which seqs were lost; the state folder is not changed. " +
			"`cos restore NEW_FILE` then puts the new log in place. With a NATS store, --salvage writes the events before " +
			"the stream's first bad message, and `cos --store NEW_FILE migrate --to nats://HOST:PORT/NEW_STREAM` copies them " +
			"into a new stream.",
		Example: "  cos verify\n  cos verify --salvage /tmp/salvaged.db",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("salvage") && strings.TrimSpace(salvage) == "" {
				return usageError("--salvage needs the path of a new file to write, e.g. --salvage /tmp/salvaged.db")
			}
			if asJSON && salvage == "" {
				return usageError("--json goes with --salvage (a plain verify prints one line)")
			}
			if salvage != "" {
				return a.salvage(cmd.Context(), salvage, asJSON)
			}
			l, err := a.openLog(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = l.Close(context.Background()) }()
			n, err := l.Verify(cmd.Context())
			var ie *eventlog.IntegrityError
			if errors.As(err, &ie) && a.natsStore() != nil {
				st := a.natsStore()
				return &exitError{code: ExitError, err: fmt.Errorf("E_INTEGRITY: %v; the events before it (%s) verify. "+
					"Writes are refused, and a stream refuses deletes, so the message stays. `cos verify --salvage NEW_FILE` writes "+
					"the events before it to a new log file; `cos --store NEW_FILE migrate --to %s` (another stream name) then "+
					"copies them into a new stream for every cos to use", ie, events(n), natsTarget(*st))}
			}
			if errors.As(err, &ie) {
				// Not the tools' message: that one sends the reader here.
				return &exitError{code: ExitError, err: fmt.Errorf("E_INTEGRITY: %v; the events before it (%s) verify. "+
					"Writes are refused until the log is replaced. `cos verify --salvage NEW_FILE` writes every event "+
					"that still verifies to a new log and lists the seqs lost; `cos restore NEW_FILE` then puts it in "+
					"place (the damaged log is kept beside it)", ie, events(n))}
			}
			if err != nil {
				return failure(err)
			}
			// A chain that verifies by itself can still be an older copy
			// of the log than this state folder has seen (a backup put
			// back by hand, a rebuilt stream). Another log file named by
			// --store (a copy, a backup) is verified for itself.
			if st, perr := state.ParseStore(a.stateDir, a.store); perr != nil || st.IsNATS() || st.Path == filepath.Join(a.stateDir, state.LogFile) {
				err = state.CheckLogSeen(cmd.Context(), a.stateDir, a.store, l, a.stderrLogger(slog.LevelWarn))
			}
			if err != nil {
				msg := err.Error()
				if ee := (*envelope.Error)(nil); errors.As(err, &ee) {
					msg = string(ee.Code) + ": " + ee.Message
				}
				return &exitError{code: ExitError, err: fmt.Errorf("%s. Its own chain verifies (%s)", msg, events(n))}
			}
			_, err = fmt.Fprintf(a.io.Out, "ok %s\n", events(n))
			return err
		},
	}
	cmd.Flags().StringVar(&salvage, "salvage", "", "write every event that still verifies to this new file (never overwritten)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "with --salvage, print the report as JSON")
	return cmd
}

// salvage runs cos verify --salvage dest: it writes the new log and prints
// what was kept and exactly which seqs were lost.
func (a *app) salvage(ctx context.Context, dest string, asJSON bool) error {
	st, err := state.ParseStore(a.stateDir, a.store)
	if err != nil {
		return usageError("--store %q: %v", a.store, err)
	}
	rep, err := state.Salvage(ctx, st, dest)
	if errors.Is(err, store.ErrDestExists) {
		return &exitError{code: ExitError, err: fmt.Errorf("E_ARGUMENT: %s already exists; --salvage never overwrites a file, name a new one", dest)}
	}
	if err != nil {
		return failure(err)
	}
	// Nothing kept of a log that had events is a failure, whatever the
	// report says: restoring that file would empty every projection.
	var nothing error
	if rep.Kept == 0 && rep.Examined > 0 {
		nothing = &exitError{code: ExitError, err: fmt.Errorf("E_INTEGRITY: no event of the %d examined could be salvaged; "+
			"%s holds none, do not restore it — restore a backup (`cos restore BACKUP`) instead", rep.Examined, rep.Dest)}
	}
	if asJSON {
		enc := json.NewEncoder(a.io.Out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return err
		}
		return nothing
	}
	w := a.io.Out
	if _, err := fmt.Fprintf(w, "salvaged %d of %d events to %s (head %d %s)\n", rep.Kept, rep.Examined, rep.Dest, rep.Head.Seq, rep.Head.Hash); err != nil {
		return err
	}
	if len(rep.Lost) == 0 {
		_, err = fmt.Fprintln(w, "lost: none")
		return errors.Join(err, nothing)
	}
	seqs := make([]string, len(rep.Lost))
	for i, l := range rep.Lost {
		seqs[i] = strconv.FormatUint(l.Seq, 10)
	}
	if _, err := fmt.Fprintf(w, "lost %d: seq %s\n", len(rep.Lost), strings.Join(seqs, ", ")); err != nil {
		return err
	}
	for _, l := range rep.Lost {
		if _, err := fmt.Fprintf(w, "  seq %d: %s\n", l.Seq, l.Reason); err != nil {
			return err
		}
	}
	if st.IsNATS() {
		_, err = fmt.Fprintf(w, "%s holds every event before seq %d; a stream refuses deletes, so copy the file into a new stream with `cos --store %s migrate --to %s` (another stream name), then point every cos at that stream\n",
			rep.Dest, rep.Lost[0].Seq, rep.Dest, natsTarget(st))
	} else {
		_, err = fmt.Fprintf(w, "events after seq %d have new seqs in %s (each moves down by the number of seqs lost before it); put it in place with `cos restore %s`\n",
			rep.Lost[0].Seq, rep.Dest, rep.Dest)
	}
	if err != nil {
		return err
	}
	return nothing
}
