package hub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/cos-dev/cos/internal/httpauth"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
)

// Defaults of Options.
const (
	// DefaultMaxEventStreams is Options.MaxEventStreams's default: how many
	// /api/events streams may be open at once.
	DefaultMaxEventStreams = 64
	// DefaultHeartbeat is Options.Heartbeat's default: how often an idle
	// event stream gets a comment line, so proxies and browsers keep it.
	DefaultHeartbeat = 15 * time.Second
)

// Options configure New.
type Options struct {
	// Token, when set, is required on every /api request except
	// /api/login and /api/session: "Authorization: Bearer <token>" or the
	// cookie POST /api/login sets. Empty: the API is open (cos refuses a
	// non-loopback address without a token before it gets here). The page
	// itself (/ and its files) is served without it.
	Token string
	// AllowedOrigins are the browser origins ("scheme://host[:port]")
	// whose requests are served besides the server's own. A request with
	// any other Origin is refused (403, E_ORIGIN).
	AllowedOrigins []string
	// MaxEventStreams bounds the /api/events streams open at once; one
	// more is answered 503 (E_UNAVAILABLE). 0 means DefaultMaxEventStreams.
	MaxEventStreams int
	// Heartbeat is how often an event stream gets a comment line when
	// nothing else was sent. 0 means DefaultHeartbeat.
	Heartbeat time.Duration
	// SessionIdle is how long a login session may go unused before it
	// ends (its cookie's Max-Age). 0 means DefaultSessionIdle.
	SessionIdle time.Duration
	// Logger receives diagnostics (nil: discarded).
	Logger *slog.Logger
	// now is the clock of sessions and the login throttle (nil:
	// time.Now); tests set it.
	now func() time.Time
}

// Validate checks the options; the error names the first bad one.
func (o Options) Validate() error {
	if o.MaxEventStreams < 0 {
		return fmt.Errorf("max event streams %d is negative", o.MaxEventStreams)
	}
	if o.Heartbeat < 0 {
		return fmt.Errorf("heartbeat %v is negative", o.Heartbeat)
	}
	if o.SessionIdle < 0 {
		return fmt.Errorf("session idle timeout %v is negative", o.SessionIdle)
	}
	if _, err := httpauth.NewOrigins(o.AllowedOrigins); err != nil {
		return fmt.Errorf("allowed origin %w", err)
	}
	return nil
}

// Hub serves the page, the tool routes under /api/ and its own routes:
// /api/events (server-sent events), /api/login, /api/logout and
// /api/session. Make one
// with New; Close ends its event streams.
type Hub struct {
	r      *tools.Runner
	st     *state.State
	logger *slog.Logger
	token  httpauth.Token
	// sessions are the open login sessions; throttle slows wrong logins.
	sessions *sessions
	throttle *throttle
	origins  httpauth.Origins
	// hosts are the host names (lower case, no port) of the allowed
	// origins: a Host header naming one is accepted without a token.
	hosts     map[string]bool
	maxStream int
	heartbeat time.Duration
	handler   http.Handler

	// ctx ends every event stream on Close.
	ctx    context.Context
	cancel context.CancelFunc
	// streams counts the open event streams (at most maxStream); wg waits
	// for their handlers on Close.
	mu      sync.Mutex
	streams int
	closed  bool
	wg      sync.WaitGroup
}

// New returns the Hub over runner r and the state st it runs on. It
// returns o.Validate's error.
func New(r *tools.Runner, st *state.State, o Options) (*Hub, error) {
	if r == nil || st == nil {
		return nil, errors.New("hub: a runner and a state are required")
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	origins, _ := httpauth.NewOrigins(o.AllowedOrigins)
	h := &Hub{r: r, st: st, logger: o.Logger, token: httpauth.NewToken(o.Token), origins: origins,
		hosts: map[string]bool{}, maxStream: o.MaxEventStreams, heartbeat: o.Heartbeat}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	if h.maxStream == 0 {
		h.maxStream = DefaultMaxEventStreams
	}
	if h.heartbeat == 0 {
		h.heartbeat = DefaultHeartbeat
	}
	idle := o.SessionIdle
	if idle == 0 {
		idle = DefaultSessionIdle
	}
	now := o.now
	if now == nil {
		now = time.Now
	}
	h.sessions, h.throttle = newSessions(idle, now), newThrottle(now)
	for _, s := range origins.List() {
		h.hosts[hostOfOrigin(s)] = true
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())

	api := http.NewServeMux()
	api.HandleFunc("/api/events", h.events)
	api.Handle("/api/", NewAPI(r, APIOptions{Logger: h.logger, Auth: h.token.Set()}))
	mux := http.NewServeMux()
	mux.HandleFunc("/api/login", h.login)
	mux.HandleFunc("/api/session", h.session)
	mux.HandleFunc("/api/logout", h.logout)
	mux.Handle("/api/", h.guard(api))
	mux.Handle("/", Assets())
	h.handler = compressAPI(mux)
	return h, nil
}

// Handler returns the handler of the whole Hub, meant to be mounted at
// "/" (beside /mcp on the same server, a more specific pattern): the page
// at / and the API under /api/.
func (h *Hub) Handler() http.Handler { return h.handler }

// Close ends every open event stream and waits for their handlers to
// return. Other requests are not affected. It is idempotent.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

// eventStreams returns how many /api/events streams are open.
func (h *Hub) eventStreams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streams
}

// openStream counts one more event stream; false when the limit is
// reached or the Hub is closed.
func (h *Hub) openStream() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.streams >= h.maxStream {
		return false
	}
	h.streams++
	h.wg.Add(1)
	return true
}

// closeStream counts one event stream less.
func (h *Hub) closeStream() {
	h.mu.Lock()
	h.streams--
	h.mu.Unlock()
	h.wg.Done()
}
