package bus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// openAuto makes the first connection in auto mode (creating the state
// folder if needed): to the recorded server
// if it answers, else by winning the election and hosting; a process that
// loses the election waits for the winner's record and connects to it.
func (b *Bus) openAuto(ctx context.Context) error {
	if err := os.MkdirAll(b.opts.StateDir, 0o755); err != nil {
		return fmt.Errorf("%w: state dir: %v", ErrUnavailable, err)
	}
	var lastErr error
	for {
		rec, ok, err := readRecord(b.opts.StateDir)
		if err != nil {
			lastErr = err
		}
		if ok {
			l, err := b.dial(ctx, rec.URL, true)
			if err == nil {
				b.mu.Lock()
				b.link = l
				b.mu.Unlock()
				return nil
			}
			lastErr = err
		}
		won, err := b.tryHost(ctx)
		if err != nil {
			lastErr = err
		}
		if won {
			return nil
		}
		if !b.pause(ctx) {
			if lastErr == nil {
				lastErr = ctx.Err()
			}
			return fmt.Errorf("%w: %v", ErrUnavailable, lastErr)
		}
	}
}

// tryHost runs one round of the election: if this process can take
// <state>/nats.lock without waiting, it starts the embedded server (on the
// recorded port if it can, else on a random one) requiring the credentials
// of AuthFile (generated when missing), records it in nats.json and
// connects to it. It reports whether this process now hosts. The lock
// is held until Close; it is released again if the server cannot start or
// be recorded, so that another process can try.
func (b *Bus) tryHost(ctx context.Context) (bool, error) {
	lock := flock.New(filepath.Join(b.opts.StateDir, LockFile))
	won, err := lock.TryLock()
	if err != nil {
		return false, fmt.Errorf("election: %w", err)
	}
	if !won {
		return false, nil
	}
	release := func(cause error) (bool, error) {
		if err := lock.Unlock(); err != nil {
			cause = errors.Join(cause, fmt.Errorf("release %s: %w", LockFile, err))
		}
		return false, cause
	}

	rec, _, err := readRecord(b.opts.StateDir)
	if err != nil {
		return release(err)
	}
	log := b.opts.Logger
	creds, err := b.hostCredentials()
	if err != nil {
		return release(err)
	}
	port := rec.port()
	if port == 0 {
		port = randomPort
	}
	// The server starts and is recorded under mu, so that a client
	// reconnecting to it is only reported (ringReconnected takes mu) once
	// State says hosting and nats.json names it.
	b.mu.Lock()
	srv, err := startServer(b.serverName, port, DefaultMaxPayload, creds, log)
	if err != nil && port != randomPort {
		log.Warn("bus: recorded port unavailable, using a random one", "port", port, "err", err)
		srv, err = startServer(b.serverName, randomPort, DefaultMaxPayload, creds, log)
	}
	var url string
	if err == nil {
		url = serverURL(srv)
		err = writeRecord(b.opts.StateDir, Record{URL: url, PID: b.self.PID, Host: b.self.Host, Started: time.Now().UTC()})
		if err != nil {
			stopServer(srv)
		}
	}
	if err == nil {
		b.srv, b.lock, b.creds = srv, lock, creds
	}
	current := b.link
	b.mu.Unlock()
	if err != nil {
		return release(err)
	}
	log.Info("bus hosting embedded nats-server", "url", url, "namespace", b.opts.Namespace)

	if current != nil {
		// Same URL: retry at once instead of after the reconnect wait.
		// Another URL: recover moves the connection over.
		if current.url == url && current.nc.IsReconnecting() {
			_ = current.nc.ForceReconnect() // fails only once closed
		}
		return true, nil
	}
	l, err := b.dial(ctx, url, true)
	if err != nil {
		b.mu.Lock()
		b.srv, b.lock = nil, nil
		b.mu.Unlock()
		stopServer(srv)
		return release(err)
	}
	b.mu.Lock()
	b.link = l
	b.mu.Unlock()
	return true, nil
}

// superviseLoop restores the connection in auto mode after it drops: it
// runs the election (a survivor of a dead host takes over) and follows the
// record to a host on a new URL; reconnects to the same URL are the client
// library's.
func (b *Bus) superviseLoop() {
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-b.kick:
		}
		b.recover(b.ctx)
	}
}

// recover loops until the current connection is up again or ctx ends. A
// process that does not host runs the election each round; then the
// connection is moved to where the server now is (this process's own, or
// the recorded one) if that is not the URL it keeps retrying.
func (b *Bus) recover(ctx context.Context) {
	for ctx.Err() == nil {
		b.mu.Lock()
		l, hosting := b.link, b.srv != nil
		b.mu.Unlock()
		if l.nc.IsConnected() {
			return
		}
		if !hosting {
			if _, err := b.tryHost(ctx); err != nil {
				b.opts.Logger.Warn("bus: election", "err", err)
			}
		}
		if target := b.serverTarget(); target != "" && target != l.url {
			if nl, err := b.dial(ctx, target, true); err == nil {
				b.replaceLink(nl)
			}
		}
		if !b.pause(ctx) {
			return
		}
	}
}

// serverTarget returns the URL this process should be connected to: its
// own server's when it hosts, else the recorded one ("" when none).
func (b *Bus) serverTarget() string {
	b.mu.Lock()
	srv := b.srv
	b.mu.Unlock()
	if srv != nil {
		return serverURL(srv)
	}
	rec, ok, err := readRecord(b.opts.StateDir)
	if err != nil || !ok {
		return ""
	}
	return rec.URL
}

// keepRecord rewrites nats.json when this process hosts and the record no
// longer names its server (deleted or overwritten by hand), so that new
// processes can still find it. It runs on the heartbeat goroutine, which Close stops before it stops
// the server.
func (b *Bus) keepRecord() {
	b.mu.Lock()
	srv := b.srv
	b.mu.Unlock()
	if srv == nil {
		return
	}
	url := serverURL(srv)
	rec, ok, err := readRecord(b.opts.StateDir)
	if err == nil && ok && rec.URL == url && rec.PID == b.self.PID {
		return
	}
	b.opts.Logger.Warn("bus: nats.json does not name this host; rewriting it", "url", url)
	if err := writeRecord(b.opts.StateDir, Record{URL: url, PID: b.self.PID, Host: b.self.Host, Started: time.Now().UTC()}); err != nil {
		b.opts.Logger.Error("bus: rewrite nats.json", "err", err)
	}
}
