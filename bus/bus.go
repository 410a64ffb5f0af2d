package bus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/gofrs/flock"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// State values of State.Mode.
const (
	StateAuto = "auto"
	StateOff  = "off"
	StateURL  = "url"
)

// drainTimeout bounds how long Close waits for subscriptions to finish the
// messages they already hold.
const drainTimeout = 2 * time.Second

// writeTimeout bounds one socket write of the client, and so how long
// Publish can block when the server stops reading (the connection is then
// treated as broken and reconnected).
const writeTimeout = 2 * time.Second

// subscribeFlushTimeout bounds the round trip that confirms a subscription.
const subscribeFlushTimeout = 2 * time.Second

// State is the bus as cos_health reports it.
type State struct {
	// Mode is "auto", "off" or "url" (an external server).
	Mode string `json:"mode"`
	// URL is the server this process connects to, with any password
	// replaced by "xxxxx"; empty when off.
	URL string `json:"url,omitempty"`
	// Connected reports whether the connection is up right now.
	Connected bool `json:"connected"`
	// Hosting reports whether this process runs the embedded server.
	Hosting bool `json:"hosting"`
	// Namespace is the subject namespace, cos.<namespace>.….
	Namespace string `json:"namespace"`
}

// Bus is one process's connection to the change feed. All methods are safe
// for concurrent use.
type Bus struct {
	opts Options // defaults applied
	mode string  // StateAuto, StateOff or StateURL
	self Peer    // this process, as its heartbeats describe it
	// serverName identifies the embedded server of this state folder, so
	// that a recorded URL now served by someone else's server is not used.
	serverName string

	ctx    context.Context // cancelled by Close; ends the goroutines below
	cancel context.CancelFunc
	wg     sync.WaitGroup // supervisor, notifier, heartbeat

	closeOnce sync.Once

	kick        chan struct{} // cap 1: the connection dropped (auto mode)
	reconnected chan struct{} // cap 1: the connection came back or was replaced

	// mu guards the fields below. It is never held while calling user code
	// or while waiting on the network (it is held while the embedded server
	// binds its port and nats.json is written, local calls of a few ms
	// during a takeover), and never together with peersMu.
	mu          sync.Mutex
	closed      bool
	link        *link          // current connection; nil when off
	srv         *server.Server // non-nil while this process hosts
	lock        *flock.Flock   // held while srv is non-nil
	creds       credentials    // srv's credentials, set with srv
	subs        map[uint64]*subscription
	nextSub     uint64
	onReconnect []func()

	// peersMu guards peers.
	peersMu sync.Mutex
	peers   map[string]peerEntry
}

// link is one NATS connection and the signal that it has fully closed.
type link struct {
	nc     *nats.Conn
	url    string
	closed chan struct{} // closed by the ClosedHandler
}

// subscription is one Subscribe call, re-made on every new connection.
type subscription struct {
	subject string
	handler nats.MsgHandler
	sub     *nats.Subscription // on the current link
}

// Open connects to the bus as Options say (see the package documentation for
// the modes) and starts the presence heartbeat. It blocks until the first
// connection is up, or fails with ErrUnavailable once ctx ends or
// Options.ConnectTimeout passes; invalid options fail with ErrInvalidOptions.
// In "off" mode it never touches the network. The caller must Close the Bus.
func Open(ctx context.Context, o Options) (*Bus, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	b := &Bus{
		opts:        o,
		self:        Peer{ID: newPeerID(), PID: os.Getpid(), Host: host, Started: time.Now().UTC()},
		serverName:  "cos-" + DeriveNamespace(o.StateDir),
		kick:        make(chan struct{}, 1),
		reconnected: make(chan struct{}, 1),
		subs:        make(map[uint64]*subscription),
		peers:       make(map[string]peerEntry),
	}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	switch {
	case o.Mode == ModeOff:
		b.mode = StateOff
		return b, nil
	case o.Mode == ModeAuto:
		b.mode = StateAuto
	default:
		b.mode = StateURL
	}

	openCtx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
	defer cancel()
	if b.mode == StateAuto {
		err = b.openAuto(openCtx)
	} else {
		err = b.openURL(openCtx)
	}
	if err != nil {
		b.cancel()
		return nil, err
	}

	if _, err := b.subscribeRaw(PresenceSubject(o.Namespace), b.receiveHeartbeat); err != nil {
		_ = b.Close() // the subscribe error is the one to report
		return nil, fmt.Errorf("subscribe presence: %w", err)
	}
	b.start(b.notifyLoop)
	b.start(b.heartbeatLoop)
	if b.mode == StateAuto {
		b.start(b.superviseLoop)
	}
	return b, nil
}

// openURL connects to the external server of Options.Mode.
func (b *Bus) openURL(ctx context.Context) error {
	for {
		l, err := b.dial(ctx, b.opts.Mode, false)
		if err == nil {
			b.mu.Lock()
			b.link = l
			b.mu.Unlock()
			return nil
		}
		if !b.pause(ctx) {
			return fmt.Errorf("%w: %s: %v", ErrUnavailable, redactURL(b.opts.Mode), err)
		}
	}
}

// start runs fn on a goroutine owned by b.
func (b *Bus) start(fn func()) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		fn()
	}()
}

// pause waits one reconnect interval; it reports false when ctx ended.
func (b *Bus) pause(ctx context.Context) bool {
	t := time.NewTimer(b.opts.ReconnectWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// dial connects to url. With embedded, url is this state folder's embedded
// server: the connection authenticates with the credentials in AuthFile
// (read again on every reconnect), and a server that is not this folder's
// is refused. Otherwise url is used as given, with any credentials it
// carries. Reconnects to the same url are left to the client library;
// every reconnect wakes the OnReconnect callbacks.
func (b *Bus) dial(ctx context.Context, url string, embedded bool) (*link, error) {
	l := &link{url: url, closed: make(chan struct{})}
	timeout := time.Second
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = max(time.Until(d), time.Millisecond)
	}
	wait := b.opts.ReconnectWait
	opts := []nats.Option{
		nats.Name(fmt.Sprintf("cos pid %d", b.self.PID)),
		nats.Timeout(timeout),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(wait),
		nats.ReconnectJitter(wait/4, wait/4),
		nats.DrainTimeout(drainTimeout),
		nats.FlusherTimeout(writeTimeout),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) { b.disconnected(l) }),
		nats.ReconnectHandler(func(*nats.Conn) { b.ringReconnected(l) }),
		nats.ClosedHandler(func(*nats.Conn) { close(l.closed) }),
		nats.ErrorHandler(func(_ *nats.Conn, s *nats.Subscription, err error) {
			subj := ""
			if s != nil {
				subj = s.Subject
			}
			b.opts.Logger.Warn("nats async error", "subject", subj, "err", err)
		}),
	}
	if embedded {
		opts = append(opts, nats.UserInfoHandler(b.clientCredentials))
	}
	if b.opts.NoEcho {
		opts = append(opts, nats.NoEcho())
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", redactURL(url), err)
	}
	l.nc = nc
	if embedded && nc.ConnectedServerName() != b.serverName {
		nc.Close()
		<-l.closed
		return nil, fmt.Errorf("connect %s: server %q is not this state folder's (%q)", url, nc.ConnectedServerName(), b.serverName)
	}
	return l, nil
}

// disconnected is the DisconnectErrHandler of l.
func (b *Bus) disconnected(l *link) {
	b.mu.Lock()
	current := b.link == l && !b.closed
	b.mu.Unlock()
	if !current {
		return
	}
	b.opts.Logger.Info("bus disconnected", "url", redactURL(l.url))
	signal(b.kick)
}

// ringReconnected is the ReconnectHandler of l.
func (b *Bus) ringReconnected(l *link) {
	b.mu.Lock()
	current := b.link == l && !b.closed
	b.mu.Unlock()
	if !current {
		return
	}
	b.opts.Logger.Info("bus reconnected", "url", redactURL(l.url))
	signal(b.reconnected)
}

// signal does a non-blocking send on a 1-slot channel: signals coalesce.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// notifyLoop runs the OnReconnect callbacks after every reconnect or
// connection replacement, one round at a time; signals that arrive during a
// round cause one more round.
func (b *Bus) notifyLoop() {
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-b.reconnected:
		}
		b.mu.Lock()
		fns := append([]func(){}, b.onReconnect...)
		nc := b.link.nc
		b.mu.Unlock()
		// The client re-sends every subscription on reconnect; one round
		// trip makes sure the server has them before the callbacks read
		// the log, so nothing published after that is missed.
		if err := nc.FlushTimeout(subscribeFlushTimeout); err != nil {
			b.opts.Logger.Debug("bus: reconnect not confirmed", "err", err)
		}
		for _, fn := range fns {
			fn()
		}
		b.sendHeartbeat(false)
	}
}

// OnReconnect registers fn to run after every reconnect, including a
// reconnect to a new host after a takeover. It does not run for the first
// connection made by Open: a subscriber subscribes first and then catches up
// from the log once. When fn runs, the server has every subscription again
// (one round trip, bounded by 2 s), so an event published after that reaches
// them. Callbacks run one at a time on a goroutine owned by the
// Bus; a slow callback delays the next round, not the connection. Close waits
// for a running callback to return. In "off" mode fn never runs.
func (b *Bus) OnReconnect(fn func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.onReconnect = append(b.onReconnect, fn)
}

// Namespace returns the subject namespace.
func (b *Bus) Namespace() string { return b.opts.Namespace }

// State reports the bus for cos_health.
func (b *Bus) State() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := State{Mode: b.mode, Namespace: b.opts.Namespace, Hosting: b.srv != nil}
	if b.link != nil {
		st.URL = redactURL(b.link.url)
		st.Connected = !b.closed && b.link.nc.IsConnected()
	}
	return st
}

// Publish sends ev on cos.<ns>.events.<ev.Type> with the Cos-Seq, Cos-Stream
// and Nats-Msg-Id headers and the event's JSON as the body. It does not wait
// for any receiver: delivery is at most once and the log stays the truth.
// While the connection is down the message is buffered (up to the client's
// 8 MB reconnect buffer) and an error is returned beyond that; a socket
// write that stalls gives up after 2 s. So Publish never blocks for long. In "off" mode it does nothing. Errors: ctx's error,
// ErrInvalidSubject for a type that cannot be a subject, ErrClosed after
// Close, or the client's error (for example a payload over the server's
// limit).
func (b *Bus) Publish(ctx context.Context, ev eventlog.Event) error {
	if b.mode == StateOff {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	msg, err := encodeEvent(b.opts.Namespace, ev)
	if err != nil {
		return err
	}
	nc, err := b.conn()
	if err != nil {
		return err
	}
	if err := nc.PublishMsg(msg); err != nil {
		return fmt.Errorf("publish event %d: %w", ev.Seq, err)
	}
	return nil
}

// conn returns the current client connection.
func (b *Bus) conn() (*nats.Conn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	return b.link.nc, nil
}

// Subscribe calls fn with every event published on subject, as the
// message's body carries it — anyone who can publish on the server can send
// any body, so a subscriber that keeps state uses SubscribeSeqs and reads
// the log instead. subject is a full NATS
// subject or pattern such as EventsSubject(b.Namespace(), "task.>"). fn runs
// on a goroutine owned by the Bus, one message at a time per subscription,
// and must not block for long: a subscriber that falls far behind has
// messages dropped (it then sees a gap and reads the log). Messages that do
// not decode as an event are logged and skipped. The subscription survives
// reconnects and takeovers; messages published while it was down are lost, so
// pair it with OnReconnect. When Subscribe returns, the server has the
// subscription (one round trip, bounded by 2 s; while disconnected it is
// re-sent on reconnect). In "off" mode fn never runs. The returned
// function unsubscribes and may be called more than once. Errors:
// ErrInvalidSubject, ErrClosed.
func (b *Bus) Subscribe(subject string, fn func(eventlog.Event)) (unsubscribe func(), err error) {
	log := b.opts.Logger
	return b.subscribeChecked(subject, func(m *nats.Msg) {
		ev, err := decodeEvent(m.Data)
		if err != nil {
			log.Warn("bus: skip message", "subject", m.Subject, "err", err)
			return
		}
		fn(ev)
	})
}

// SubscribeSeqs is the doorbell form of Subscribe: fn gets only the Cos-Seq
// header of every event published on subject, never the body. A subscriber
// that keeps projections uses it to learn that the log has grown and then
// reads the events from the log: anyone who can publish on the bus can send
// any body, so a body is never the truth. A message without a valid Cos-Seq
// header is skipped. fn runs as Subscribe's does; errors and the returned
// function are Subscribe's.
func (b *Bus) SubscribeSeqs(subject string, fn func(seq uint64)) (unsubscribe func(), err error) {
	log := b.opts.Logger
	return b.subscribeChecked(subject, func(m *nats.Msg) {
		seq, err := strconv.ParseUint(m.Header.Get(HeaderSeq), 10, 64)
		if err != nil || seq == 0 {
			log.Debug("bus: skip a message without a valid "+HeaderSeq+" header", "subject", m.Subject)
			return
		}
		fn(seq)
	})
}

// subscribeRaw registers handler on subject for the life of the Bus (across
// connection replacements) until the returned function is called.
// subscribeChecked is subscribeRaw for a caller's subject: it checks the
// subject, and in "off" mode subscribes to nothing (ErrClosed once closed).
func (b *Bus) subscribeChecked(subject string, handler nats.MsgHandler) (func(), error) {
	if err := checkSubject(subject); err != nil {
		return nil, err
	}
	if b.mode == StateOff {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.closed {
			return nil, ErrClosed
		}
		return func() {}, nil
	}
	return b.subscribeRaw(subject, handler)
}

func (b *Bus) subscribeRaw(subject string, handler nats.MsgHandler) (func(), error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, ErrClosed
	}
	nc := b.link.nc
	sub, err := nc.Subscribe(subject, handler)
	if err != nil {
		b.mu.Unlock()
		return nil, fmt.Errorf("subscribe %s: %w", subject, err)
	}
	s := &subscription{subject: subject, handler: handler, sub: sub}
	b.nextSub++
	id := b.nextSub
	b.subs[id] = s
	b.mu.Unlock()

	// One round trip, so that the server has the interest before Subscribe
	// returns: a caller that subscribes and then reads the log misses
	// nothing. While disconnected the subscription is re-sent on reconnect.
	if err := nc.FlushTimeout(subscribeFlushTimeout); err != nil {
		b.opts.Logger.Debug("bus: subscribe not confirmed", "subject", subject, "err", err)
	}

	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			delete(b.subs, id)
			if s.sub != nil {
				_ = s.sub.Unsubscribe() // fails only on a closed connection
			}
		})
	}, nil
}

// replaceLink makes l the current connection: every subscription is made
// again on it, the old connection is closed, and the OnReconnect callbacks
// are rung. It reports false (and closes l) when the Bus is closing.
func (b *Bus) replaceLink(l *link) bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		closeLink(l)
		return false
	}
	old := b.link
	b.link = l
	for _, s := range b.subs {
		sub, err := l.nc.Subscribe(s.subject, s.handler)
		if err != nil {
			b.opts.Logger.Error("bus: resubscribe", "subject", s.subject, "err", err)
			s.sub = nil
			continue
		}
		s.sub = sub
	}
	b.mu.Unlock()
	if old != nil {
		closeLink(old)
	}
	b.opts.Logger.Info("bus connected to new server", "url", redactURL(l.url))
	signal(b.reconnected)
	return true
}

// closeLink closes l at once and waits for its goroutines to end.
func closeLink(l *link) {
	l.nc.Close()
	<-l.closed
}

// Close stops the heartbeat and the background loops, says goodbye on the
// presence subject, drains the connection (bounded by 2 s), shuts the
// embedded server down if this process hosts it — another process then
// takes over — and releases the host lock. Every goroutine the Bus started
// has ended when Close returns. It is idempotent; later calls return nil.
func (b *Bus) Close() error {
	var err error
	b.closeOnce.Do(func() { err = b.close() })
	return err
}

func (b *Bus) close() error {
	b.cancel()
	b.wg.Wait()
	if b.mode != StateOff {
		b.sendHeartbeat(true)
	}

	b.mu.Lock()
	b.closed = true
	l, srv, lock := b.link, b.srv, b.lock
	b.srv, b.lock = nil, nil
	b.mu.Unlock()

	var errs []error
	if l != nil {
		// Drain lets subscriptions finish what they hold; a connection that
		// is down (reconnecting) has nothing to drain and is just closed.
		if err := l.nc.Drain(); err != nil {
			b.opts.Logger.Debug("bus: drain", "err", err)
			l.nc.Close()
		}
		<-l.closed
	}
	if srv != nil {
		stopServer(srv)
	}
	if lock != nil {
		if err := lock.Unlock(); err != nil {
			errs = append(errs, fmt.Errorf("release %s: %w", LockFile, err))
		}
	}
	return errors.Join(errs...)
}

// newPeerID returns 16 random hex digits naming one Bus.
func newPeerID() string {
	var r [8]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(r[:])
}
