package hub

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"sync"
	"time"
)

// DefaultSessionIdle is Options.SessionIdle's default: a login session
// not used for this long ends.
const DefaultSessionIdle = 12 * time.Hour

// maxSessions bounds the login sessions held at once; a login past it
// ends the one idle longest.
const maxSessions = 4096

// sessions are the login sessions POST /api/login opens: random ids held
// in memory, each ending after idle without use or on logout. A restart
// ends them all.
type sessions struct {
	idle time.Duration
	now  func() time.Time
	mu   sync.Mutex
	// byID maps a session id to the time of its last use.
	byID map[string]time.Time
}

func newSessions(idle time.Duration, now func() time.Time) *sessions {
	return &sessions{idle: idle, now: now, byID: map[string]time.Time{}}
}

// open starts a session and returns its id: 32 random bytes, hex.
func (s *sessions) open() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	id := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for k, last := range s.byID {
		if now.Sub(last) >= s.idle {
			delete(s.byID, k)
		}
	}
	if len(s.byID) >= maxSessions {
		oldest, at := "", now
		for k, last := range s.byID {
			if last.Before(at) {
				oldest, at = k, last
			}
		}
		delete(s.byID, oldest)
	}
	s.byID[id] = now
	return id
}

// use reports whether id is an open session and, if so, counts now as its
// last use; since is how long it had not been used.
func (s *sessions) use(id string) (since time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	last, ok := s.byID[id]
	if !ok {
		return 0, false
	}
	now := s.now()
	if now.Sub(last) >= s.idle {
		delete(s.byID, id)
		return 0, false
	}
	s.byID[id] = now
	return now.Sub(last), true
}

// close ends session id (nothing when it is not open).
func (s *sessions) close(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, id)
}

// Defaults of the login throttle.
const (
	// loginFreeFailures wrong tokens from one address are answered at once;
	// each one more makes the address wait loginDelay, doubled each time
	// up to loginMaxDelay.
	loginFreeFailures = 5
	loginDelay        = time.Second
	loginMaxDelay     = 5 * time.Minute
	// loginForget: an address with no failure for this long starts over.
	loginForget = time.Hour
	// maxThrottled bounds the addresses the throttle remembers.
	maxThrottled = 16384
)

// throttle slows repeated wrong logins, per client address: after
// loginFreeFailures failures, the address must wait before it may try
// again, longer after each further failure. A right token resets it.
type throttle struct {
	now func() time.Time
	mu  sync.Mutex
	by  map[string]*failures
}

type failures struct {
	n     int
	last  time.Time
	until time.Time // no login is tried from the address before this
}

func newThrottle(now func() time.Time) *throttle {
	return &throttle{now: now, by: map[string]*failures{}}
}

// clientAddr is the throttle's key for a request: the IP of the
// connection (no forwarded header is believed); for IPv6, its /64, which
// one client usually holds whole (else one client could spread its tries
// over as many addresses as it likes and flush the throttle).
func clientAddr(remote string) string {
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return host
	case ip.To4() != nil:
		return ip.To4().String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// wait returns how long addr must still wait before a login is tried (0:
// now).
func (t *throttle) wait(addr string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.by[addr]
	if f == nil {
		return 0
	}
	if d := f.until.Sub(t.now()); d > 0 {
		return d
	}
	return 0
}

// fail counts a wrong token from addr and returns the wait it now has.
func (t *throttle) fail(addr string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	f := t.by[addr]
	if f == nil || now.Sub(f.last) >= loginForget {
		if len(t.by) >= maxThrottled {
			t.prune(now)
		}
		f = &failures{}
		t.by[addr] = f
	}
	f.n++
	f.last = now
	if f.n < loginFreeFailures {
		return 0
	}
	d := loginDelay
	for i := loginFreeFailures; i < f.n && d < loginMaxDelay; i++ {
		d *= 2
	}
	d = min(d, loginMaxDelay)
	f.until = now.Add(d)
	return d
}

// ok forgets addr's failures after a right token.
func (t *throttle) ok(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.by, addr)
}

// prune drops the addresses with no recent failure, or all of them when
// every one is recent (the map stays bounded).
func (t *throttle) prune(now time.Time) {
	for k, f := range t.by {
		if now.Sub(f.last) >= loginForget {
			delete(t.by, k)
		}
	}
	if len(t.by) >= maxThrottled {
		clear(t.by)
	}
}
