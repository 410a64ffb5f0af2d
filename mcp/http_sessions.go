package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/cos-dev/cos/internal/atomicfile"
)

// HTTP sessions that outlive the process.
//
// A session id is valid while this process knows it: it issued it, or it
// re-created the session from its record. With a sessions folder
// (HTTPOptions.SessionDir) every session initialized over HTTP keeps a
// record there (sessionRecord: what its initialize said and the resources
// it subscribes to). A request naming an id this process does not know but
// a live record does re-creates the session before mcp-go sees the request:
// an initialize with the recorded client info and protocol version, under
// the same id, then a subscribe for each recorded uri. A client that keeps
// its session id thus goes on after a restart without initializing again.
// A session ended by DELETE or by the idle TTL loses its record; a record
// idle past the TTL is never used and is removed when seen.

// SessionFolder is the sessions folder's name in a state folder.
const SessionFolder = "http-sessions"

// MaxStoredSessions bounds the records a sessions folder keeps; a new
// session past it removes the record idle longest.
const MaxStoredSessions = 256

// maxRecordBytes bounds one record file: MaxSubscriptions uris of
// MaxResourceURILen bytes and room for the rest. A larger file is not read.
const maxRecordBytes = MaxSubscriptions*(MaxResourceURILen+8) + 64<<10

// maxClientText bounds the client name and version a record may hold.
const maxClientText = 256

// sessionIDPattern is the form of every id this server issues; a record's
// file name is its id, so nothing else is ever a file name.
var sessionIDPattern = regexp.MustCompile(`^mcp-session-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// sessionRecord is what re-creating a session needs.
type sessionRecord struct {
	ID              string                 `json:"id"`
	ProtocolVersion string                 `json:"protocol_version"`
	ClientInfo      mcp.Implementation     `json:"client_info"`
	Capabilities    mcp.ClientCapabilities `json:"capabilities"`
	Subscriptions   []string               `json:"subscriptions,omitempty"`
	// Active is when the session was last used, at most refreshEvery old
	// while it is in use.
	Active time.Time `json:"active"`
}

// sessionStore is the SessionIdManager of one HTTP endpoint and the
// records of its sessions.
type sessionStore struct {
	dir    string // "" keeps nothing on disk
	ttl    time.Duration
	logger *slog.Logger

	mu   sync.Mutex
	live map[string]*sessionRecord // known ids; a nil record until initialized
	// restoring are the records of the sessions being re-created.
	restoring map[string]*sessionRecord
	// reviving serialises re-creations, so two requests of one session
	// re-create it once.
	reviving sync.Mutex
	// refreshing is whether refreshLoop runs (guarded by mu).
	refreshing bool
	// files orders the writes and removals of records, so an ended
	// session's record is never written again after its removal.
	files sync.Mutex
}

func newSessionStore(dir string, ttl time.Duration, logger *slog.Logger) (*sessionStore, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("sessions folder: %w", err)
		}
	}
	return &sessionStore{dir: dir, ttl: ttl, logger: logger, live: map[string]*sessionRecord{}, restoring: map[string]*sessionRecord{}}, nil
}

// refreshEvery is how stale a live session's recorded Active may grow.
func (st *sessionStore) refreshEvery() time.Duration { return st.ttl / 4 }

// Generate issues a new session id (mcpserver.SessionIdManager).
func (st *sessionStore) Generate() string {
	id := "mcp-session-" + uuid.NewString()
	st.mu.Lock()
	st.live[id] = nil
	st.mu.Unlock()
	return id
}

// Validate accepts the ids this process knows (mcpserver.SessionIdManager).
func (st *sessionStore) Validate(id string) (bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.live[id]; !ok {
		return false, errors.New("unknown session id")
	}
	return false, nil
}

// Terminate forgets a session, on disk too (mcpserver.SessionIdManager):
// DELETE and the idle sweeper call it.
func (st *sessionStore) Terminate(id string) (bool, error) {
	st.files.Lock()
	defer st.files.Unlock()
	st.mu.Lock()
	delete(st.live, id)
	st.mu.Unlock()
	st.removeLocked(id)
	return false, nil
}

// ResolveSessionIdManager is the store, or for the initialize that
// re-creates a session, a manager that issues that session's id
// (mcpserver.SessionIdManagerResolver).
func (st *sessionStore) ResolveSessionIdManager(r *http.Request) mcpserver.SessionIdManager {
	if r != nil {
		if id, ok := r.Context().Value(reviveKey{}).(string); ok {
			return reviveManager{st: st, id: id}
		}
	}
	return st
}

type reviveKey struct{}

// reviveManager issues one given id.
type reviveManager struct {
	st *sessionStore
	id string
}

func (m reviveManager) Generate() string {
	m.st.mu.Lock()
	m.st.live[m.id] = nil
	m.st.mu.Unlock()
	return m.id
}
func (m reviveManager) Validate(id string) (bool, error)  { return m.st.Validate(id) }
func (m reviveManager) Terminate(id string) (bool, error) { return m.st.Terminate(id) }

// recorded reports whether id has a sound record in the state folder: a
// session another process (or this one before a restart) issued.
func (st *sessionStore) recorded(id string) bool {
	_, err := st.load(id)
	return err == nil
}

// known reports whether this process knows id.
func (st *sessionStore) known(id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.live[id]
	return ok
}

// initialized records a session's initialize.
func (st *sessionStore) initialized(id string, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
	rec := &sessionRecord{ID: id, ProtocolVersion: res.ProtocolVersion, ClientInfo: req.Params.ClientInfo,
		Capabilities: req.Params.Capabilities, Active: time.Now().UTC()}
	st.mu.Lock()
	if old := st.restoring[id]; old != nil {
		rec.Subscriptions = old.Subscriptions // a re-creation keeps them
	}
	st.live[id] = rec
	start := !st.refreshing && st.dir != ""
	st.refreshing = st.refreshing || start
	st.mu.Unlock()
	st.save(rec)
	st.prune()
	if start {
		go st.refreshLoop()
	}
}

// refreshLoop touches every live session each refreshEvery, until none is
// left: a session only listening (a GET stream, no requests) is in use
// too, and mcp-go's idle sweep ends (Terminate) the ones that are not.
func (st *sessionStore) refreshLoop() {
	tick := time.NewTicker(max(st.refreshEvery(), time.Second))
	defer tick.Stop()
	for range tick.C {
		st.mu.Lock()
		ids := make([]string, 0, len(st.live))
		for id := range st.live {
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			st.refreshing = false
			st.mu.Unlock()
			return
		}
		st.mu.Unlock()
		for _, id := range ids {
			st.touch(id)
		}
	}
}

// subscribed records that a session subscribed to uri (on) or ended its
// subscription (off).
func (st *sessionStore) subscribed(id, uri string, on bool) {
	st.mu.Lock()
	rec := st.live[id]
	if rec == nil || slices.Contains(rec.Subscriptions, uri) == on {
		st.mu.Unlock()
		return
	}
	cp := *rec
	if on {
		cp.Subscriptions = append(slices.Clip(rec.Subscriptions), uri)
	} else {
		cp.Subscriptions = slices.DeleteFunc(slices.Clone(rec.Subscriptions), func(u string) bool { return u == uri })
	}
	cp.Active = time.Now().UTC()
	st.live[id] = &cp
	st.mu.Unlock()
	st.save(&cp)
}

// touch refreshes a live session's recorded Active once it is refreshEvery
// old, so a record in use never looks idle after a restart.
func (st *sessionStore) touch(id string) {
	st.mu.Lock()
	rec := st.live[id]
	if rec == nil || time.Since(rec.Active) < st.refreshEvery() {
		st.mu.Unlock()
		return
	}
	cp := *rec
	cp.Active = time.Now().UTC()
	st.live[id] = &cp
	st.mu.Unlock()
	st.save(&cp)
}

func (st *sessionStore) path(id string) string { return filepath.Join(st.dir, id+".json") }

// save writes rec's file while its session is live (no folder: nothing).
// A failure is logged: the session works on, it just does not survive a
// restart.
func (st *sessionStore) save(rec *sessionRecord) {
	if st.dir == "" || !sessionIDPattern.MatchString(rec.ID) {
		return
	}
	st.files.Lock()
	defer st.files.Unlock()
	if !st.known(rec.ID) {
		return // ended meanwhile
	}
	b, err := json.Marshal(rec)
	if err == nil {
		err = atomicfile.Write(st.path(rec.ID), b)
	}
	if err != nil {
		st.logger.Warn("http session not recorded; it will not survive a restart", "session", rec.ID, "err", err)
	}
}

// remove deletes id's record, if any.
func (st *sessionStore) remove(id string) {
	st.files.Lock()
	defer st.files.Unlock()
	st.removeLocked(id)
}

func (st *sessionStore) removeLocked(id string) {
	if st.dir == "" || !sessionIDPattern.MatchString(id) {
		return
	}
	if err := os.Remove(st.path(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		st.logger.Warn("http session record not removed", "session", id, "err", err)
	}
}

// load reads id's record. The file is untrusted: it must be small, name
// its own id, be active within the TTL, and hold a known protocol version,
// short client texts and valid resource uris (at most MaxSubscriptions);
// a record that fails is removed and not used.
func (st *sessionStore) load(id string) (*sessionRecord, error) {
	if st.dir == "" || !sessionIDPattern.MatchString(id) {
		return nil, os.ErrNotExist
	}
	f, err := os.Open(st.path(id))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	_ = f.Close()
	if err != nil {
		return nil, err
	}
	rec, err := checkRecord(id, b, st.ttl, time.Now())
	if err != nil {
		st.logger.Info("http session record dropped", "session", id, "reason", err)
		st.remove(id)
		return nil, err
	}
	return rec, nil
}

// checkRecord decodes and checks a record file's bytes.
func checkRecord(id string, b []byte, ttl time.Duration, now time.Time) (*sessionRecord, error) {
	if len(b) > maxRecordBytes {
		return nil, fmt.Errorf("record over %d bytes", maxRecordBytes)
	}
	var rec sessionRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("record is not valid: %w", err)
	}
	switch {
	case rec.ID != id:
		return nil, errors.New("record names another session")
	case !mcp.IsValidProtocolVersion(rec.ProtocolVersion) || mcp.IsModernProtocol(rec.ProtocolVersion):
		return nil, fmt.Errorf("protocol version %q is not one a session has", clip(rec.ProtocolVersion, 40))
	case len(rec.ClientInfo.Name) > maxClientText || len(rec.ClientInfo.Version) > maxClientText || len(rec.ClientInfo.Title) > maxClientText:
		return nil, errors.New("client info is too long")
	case rec.Active.After(now.Add(time.Minute)):
		return nil, errors.New("last active in the future")
	case now.Sub(rec.Active) > ttl:
		return nil, errors.New("idle past the session TTL")
	case len(rec.Subscriptions) > MaxSubscriptions:
		return nil, errors.New("too many subscriptions")
	}
	seen := map[string]bool{}
	for _, u := range rec.Subscriptions {
		if _, err := ParseResourceURI(u); err != nil || seen[u] {
			return nil, fmt.Errorf("subscription %s is not valid", quoteURI(u))
		}
		seen[u] = true
	}
	return &rec, nil
}

// prune removes records idle past the TTL, and the ones idle longest past
// MaxStoredSessions.
func (st *sessionStore) prune() {
	if st.dir == "" {
		return
	}
	entries, err := os.ReadDir(st.dir)
	if err != nil {
		return
	}
	type aged struct {
		id     string
		active time.Time
	}
	var kept []aged
	now := time.Now()
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !sessionIDPattern.MatchString(id) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		// The file's time is when Active was last written.
		if now.Sub(info.ModTime()) > st.ttl+time.Minute {
			st.remove(id)
			continue
		}
		kept = append(kept, aged{id, info.ModTime()})
	}
	if len(kept) <= MaxStoredSessions {
		return
	}
	slices.SortFunc(kept, func(a, b aged) int { return a.active.Compare(b.active) })
	for _, a := range kept[:len(kept)-MaxStoredSessions] {
		st.remove(a.id)
	}
}

// revive re-creates session id from its record through next (the mcp-go
// handler), as its initialize and subscribes did first. It reports
// whether the session is known now. orig is the request that named it:
// its context, address and authorization go with the inner requests.
func (st *sessionStore) revive(orig *http.Request, next http.Handler, id string) bool {
	st.reviving.Lock()
	defer st.reviving.Unlock()
	if st.known(id) {
		return true
	}
	rec, err := st.load(id)
	if err != nil {
		return false
	}
	params, _ := json.Marshal(map[string]any{"protocolVersion": rec.ProtocolVersion, "capabilities": rec.Capabilities, "clientInfo": rec.ClientInfo})
	ctx := context.WithValue(context.WithoutCancel(orig.Context()), reviveKey{}, id)
	st.mu.Lock()
	st.restoring[id] = rec
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		delete(st.restoring, id)
		st.mu.Unlock()
	}()
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":` + string(params) + `}`
	if got := innerPost(ctx, next, orig, init, "", rec.ProtocolVersion); got != http.StatusOK || !st.known(id) {
		st.logger.Warn("http session not re-created", "session", id, "status", got)
		st.mu.Lock()
		delete(st.live, id)
		st.mu.Unlock()
		return false
	}
	innerPost(ctx, next, orig, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, id, rec.ProtocolVersion)
	for i, uri := range rec.Subscriptions {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "resources/subscribe", "params": map[string]string{"uri": uri}})
		innerPost(ctx, next, orig, string(b), id, rec.ProtocolVersion)
	}
	st.logger.Info("http session re-created from its record", "session", id, "subscriptions", len(rec.Subscriptions))
	return true
}

// innerPost runs one JSON-RPC message through next as a POST of session
// (none: "") from where orig came, and returns the status.
func innerPost(ctx context.Context, next http.Handler, orig *http.Request, body, session, version string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, Path, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.RemoteAddr, req.Host = orig.RemoteAddr, orig.Host
	if a := orig.Header.Values("Authorization"); len(a) > 0 {
		req.Header["Authorization"] = a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, version)
	if session != "" {
		req.Header.Set(mcpserver.HeaderKeySessionID, session)
	}
	w := &discardWriter{header: http.Header{}}
	next.ServeHTTP(w, req)
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// discardWriter is an http.ResponseWriter that keeps only the status.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.header }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(p), nil
}
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *discardWriter) Flush() {}
