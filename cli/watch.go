package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/state"
	"github.com/spf13/cobra"
)

// Defaults of `cos watch`.
const (
	// DefaultWatchPoll is how often `cos watch --nats off` reads the log's
	// head (a pread of the head file, no database open).
	DefaultWatchPoll = 250 * time.Millisecond

	// watchSafetyPoll is how often `cos watch` on a bus checks the head
	// anyway: core NATS is at most once, so a dropped last message would
	// otherwise stay unprinted until the next one arrives.
	watchSafetyPoll = 2 * time.Second

	// watchBuffer is how many live events wait for the printer; beyond it
	// the bus callback drops them (never blocks) and the printer reads the
	// gap from the log.
	watchBuffer = 4096
)

func (a *app) watchCommand() *cobra.Command {
	var (
		subject, natsMode, namespace string
		from                         uint64
		asJSON                       bool
		poll                         time.Duration
	)
	cmd := &cobra.Command{
		Use:   "watch [--subject PATTERN] [--from SEQ] [--json]",
		Short: "Print the change feed: every event committed to the log, as it is committed",
		Long: "Print every committed event, one line each (seq, time, stream@revision, type, data clipped), or one " +
			"JSON object per line with --json, until interrupted.\n\n" +
			"--subject is a NATS pattern over event types, relative to the namespace: \"task.>\" prints every task " +
			"event (the subject cos.<namespace>.events.task.>), \"graph.*\" the graph events of one more token, " +
			"\"task.updated\" one type. It filters the replayed part too.\n\n" +
			"Without --from the feed starts at the log's current head. With --from SEQ it first prints the log from " +
			"SEQ, then continues live with no gap and no duplicate: the bus is subscribed before the log is read, " +
			"live events are buffered meanwhile and those already printed are skipped, and any gap in seq (core NATS " +
			"is at most once) is read from the log. With --nats off the log's head is polled instead. With a NATS store " +
			"(--store nats://…) the stream itself delivers every machine's events in order, and --nats is not used.\n\n" +
			"cos watch only reads the log; in --nats auto mode it may host the embedded NATS server until it exits.",
		Example: "  cos watch\n  cos watch --subject 'task.>' --from 1 --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pattern, err := watchPattern(subject)
			if err != nil {
				return usageError("--subject %q: %v", subject, err)
			}
			if poll <= 0 {
				return usageError("--poll %v: want a positive duration", poll)
			}
			l, err := a.openLog(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer func() { _ = l.Close(context.Background()) }()
			w := &watcher{
				log:     l,
				pattern: pattern,
				poll:    poll,
				logger:  a.stderrLogger(slog.LevelWarn),
			}
			if asJSON {
				enc := json.NewEncoder(a.io.Out)
				enc.SetEscapeHTML(false)
				w.print = func(ev eventlog.Event) error { return enc.Encode(ev) }
			} else {
				w.print = func(ev eventlog.Event) error { return printEventLine(a.io.Out, ev) }
			}
			ctx := cmd.Context()
			if f, ok := l.(logFollower); ok {
				// A log on a JetStream stream pushes every commit of every
				// machine itself, in order: no bus, no poll.
				w.follow = f
			} else if natsMode != bus.ModeOff {
				b, err := bus.Open(ctx, bus.Options{Mode: natsMode, StateDir: a.stateDir, Namespace: namespace, Logger: w.logger})
				switch {
				case errors.Is(err, bus.ErrUnavailable) && natsMode == bus.ModeAuto:
					w.logger.Warn("NATS unavailable; polling the log instead", "err", err)
				case err != nil:
					return failure(err)
				default:
					defer func() { _ = b.Close() }()
					w.bus = b
				}
			}
			start := uint64(0)
			if cmd.Flags().Changed("from") {
				start = max(from, 1)
			}
			err = w.run(ctx, start, a.io.Err)
			if err != nil && ctx.Err() == nil {
				return failure(err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&subject, "subject", ">", `NATS pattern over event types, relative to the namespace ("task.>", "graph.*", "task.updated")`)
	fl.Uint64Var(&from, "from", 0, "first print the log from this seq, then continue live")
	fl.BoolVar(&asJSON, "json", false, "print JSON lines")
	fl.StringVar(&natsMode, "nats", bus.ModeAuto, `NATS: "auto" (find or host the embedded server), "off" (poll the log's head), or a nats:// URL`)
	fl.StringVar(&namespace, "namespace", "", "subject namespace (default: derived from the state folder)")
	fl.DurationVar(&poll, "poll", DefaultWatchPoll, "how often to read the log's head with --nats off")
	return cmd
}

// printEventLine prints ev the way `cos log` does.
func printEventLine(w io.Writer, ev eventlog.Event) error {
	_, err := fmt.Fprintf(w, "%d\t%s\t%s@%d\t%s\t%s\n", ev.Seq,
		ev.Time.Format("2006-01-02T15:04:05.000Z"), ev.Stream, ev.Revision, ev.Type, clip(string(ev.Data), 160))
	return err
}

// watcher prints the feed: the log from a seq, then every event as it is
// committed, each exactly once and in seq order.
type watcher struct {
	log     state.Log
	bus     *bus.Bus // nil: poll the head
	pattern []string // split --subject
	print   func(eventlog.Event) error
	poll    time.Duration
	logger  *slog.Logger

	// follow, when set, is the log's own feed of commits (a NATS store),
	// used instead of the bus and the poll.
	follow logFollower

	// next is the next seq to print (every seq below it was printed or
	// filtered out). Only run's goroutine touches it.
	next uint64
}

// logFollower is a log that pushes its events as they commit, in seq
// order (*natslog.Log: an ordered consumer on the stream).
type logFollower interface {
	Follow(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error
}

// runFollow prints from seq start (0: from the current head on) through
// the log's own feed until ctx ends.
func (w *watcher) runFollow(ctx context.Context, start uint64, status io.Writer) error {
	if start == 0 {
		head, err := w.log.Head(ctx)
		if err != nil {
			return err
		}
		start = head.Seq + 1
	}
	w.next = start
	if _, err := fmt.Fprintf(status, "cos watch: following %s from seq %d (the store's stream)\n", strings.Join(w.pattern, "."), start); err != nil {
		return err
	}
	err := w.follow.Follow(ctx, start, w.emit)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// run prints from seq start (0: from the current head on) until ctx ends.
// The bus is subscribed before the log is read, so an event committed
// while the log is replayed is either in the replay or in the buffer; the
// buffer skips what was printed, and a seq gap is read from the log.
// A "following" line goes to status once the subscription is up.
func (w *watcher) run(ctx context.Context, start uint64, status io.Writer) error {
	if w.follow != nil {
		return w.runFollow(ctx, start, status)
	}
	live := make(chan eventlog.Event, watchBuffer)
	wake := make(chan struct{}, 1)
	ring := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	tick := w.poll
	mode := bus.ModeOff
	if w.bus != nil {
		// Every event, not only those matching --subject: the gapless seq of
		// the whole feed is what reveals a lost message.
		unsub, err := w.bus.Subscribe(bus.EventsSubject(w.bus.Namespace(), ">"), func(ev eventlog.Event) {
			select {
			case live <- ev:
			default: // the printer is behind: it finds the gap in the log
				ring()
			}
		})
		if err != nil {
			return err
		}
		defer unsub()
		w.bus.OnReconnect(ring)
		tick = watchSafetyPoll
		mode = w.bus.State().Mode
	}
	if start == 0 {
		head, err := w.log.Head(ctx)
		if err != nil {
			return err
		}
		start = head.Seq + 1
	}
	w.next = start
	if _, err := fmt.Fprintf(status, "cos watch: following %s from seq %d (nats: %s)\n", strings.Join(w.pattern, "."), start, mode); err != nil {
		return err
	}
	if err := w.catchUp(ctx); err != nil {
		return err
	}
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-live:
			switch {
			case ev.Seq < w.next: // printed already (replay or an earlier catch-up)
				continue
			case ev.Seq > w.next: // a gap: the log has it, and ev too
				if err := w.catchUp(ctx); err != nil {
					return err
				}
				continue
			}
			if err := w.emit(ev); err != nil {
				return err
			}
		case <-wake:
			if err := w.catchUp(ctx); err != nil {
				return err
			}
		case <-ticker.C:
			head, err := w.log.Head(ctx)
			if err != nil {
				return err
			}
			if head.Seq >= w.next {
				if err := w.catchUp(ctx); err != nil {
					return err
				}
			}
		}
	}
}

// catchUp prints the log from next to its end.
func (w *watcher) catchUp(ctx context.Context) error {
	err := w.log.Read(ctx, w.next, func(ev eventlog.Event) error {
		if ev.Seq < w.next {
			return nil
		}
		return w.emit(ev)
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// emit prints ev when it matches the pattern and advances next past it.
func (w *watcher) emit(ev eventlog.Event) error {
	w.next = ev.Seq + 1
	if !typeMatchesPattern(w.pattern, ev.Type) {
		return nil
	}
	return w.print(ev)
}

// watchPattern checks a --subject pattern relative to the namespace and
// splits it into tokens. A full subject "cos.<ns>.events.<pattern>" is not
// accepted: the namespace comes from --namespace or the state folder.
func watchPattern(s string) ([]string, error) {
	if s == "" {
		return nil, errors.New("empty pattern; use \">\" for every event")
	}
	toks := strings.Split(s, ".")
	for i, t := range toks {
		switch {
		case t == "":
			return nil, errors.New("empty token")
		case t == ">" && i != len(toks)-1:
			return nil, errors.New("\">\" must be the last token")
		case strings.ContainsAny(t, " \t\r\n") || (len(t) > 1 && strings.ContainsAny(t, "*>")):
			return nil, fmt.Errorf("bad token %q", t)
		}
	}
	return toks, nil
}

// typeMatchesPattern reports whether the event type typ matches the NATS
// pattern tokens: "*" matches one token, a final ">" one or more.
func typeMatchesPattern(pattern []string, typ string) bool {
	toks := strings.Split(typ, ".")
	for i, p := range pattern {
		if p == ">" {
			return len(toks) > i
		}
		if i >= len(toks) || (p != "*" && p != toks[i]) {
			return false
		}
	}
	return len(toks) == len(pattern)
}
