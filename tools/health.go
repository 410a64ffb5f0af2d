package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

func healthTools() []*Tool {
	return []*Tool{{
		Name:        "cos_health",
		Title:       "Server health",
		Description: "Server state; freshness: files changed since the last index.",
		Data: Fields{"version": "string", "started": "string", "uptime_seconds": "integer", "state_dir": "string", "read_only": "boolean",
			"log": typ(state.LogHealth{}), "projections": typ(healthProjections{}), "graph": typ(projections.GraphCounts{}), "state_hash": "string",
			"bus": typ(state.BusHealth{}), "integrity": typ(state.Integrity{}), "writable": "boolean", "search": typ(state.SearchHealth{}),
			"last_index": typ(state.IndexHealth{}), "snapshot_failure": typ(state.SnapshotFailure{}), "modules": typ([]state.ModuleStatus{}),
			"freshness": typ(healthFreshnessAnswer{}), "indexing": typ(indexing.StartRun{}), "worktree": typ(WorktreeStatus{})},
		Layer: envelope.LayerHealth, ReadOnly: true, Idempotent: true,
		Example: `{}`,
		Handler: healthTool,
	}}
}

// healthProjections is the projection part of cos_health: where the
// projections are, how far behind the head (lag, in events), and the newest
// snapshot on disk.
type healthProjections struct {
	Seq         uint64    `json:"seq"`
	Time        time.Time `json:"time"`
	Lag         uint64    `json:"lag"`
	SnapshotSeq uint64    `json:"snapshot_seq"`
	// Verified is true when the event the projections were last built
	// from (at seq) is the log's event at seq; Problem says why not.
	Verified bool   `json:"verified"`
	Problem  string `json:"problem,omitempty"`
}

// healthFreshness is cos_health's freshness: the scan, and whether a
// watcher keeps the graph current (watched_by: "this process" or "another
// process"; absent when none does).
type healthFreshness struct {
	indexing.Scan
	Watched   bool   `json:"watched"`
	WatchedBy string `json:"watched_by,omitempty"`
	// Roots is the scan of every root, by name ("" the primary root),
	// when the state folder holds several; the fields above are then the
	// first root's.
	Roots []rootScan `json:"roots,omitempty"`
}

// freshnessFailure is cos_health's freshness when a root's scan failed.
type freshnessFailure struct {
	Error string `json:"error"`
	Root  string `json:"root"`
}

// healthFreshnessAnswer is the schema of cos_health's freshness: a scan
// (healthFreshness) or a failure (freshnessFailure, root and error).
type healthFreshnessAnswer struct {
	healthFreshness
	Error string `json:"error,omitempty"`
}

// rootScan is the freshness scan of one root.
type rootScan struct {
	Name string `json:"name"`
	indexing.Scan
}

// watcher reports whether some cos process watches the indexed tree (holds
// the state folder's watch lock), and which.
func (c *Call) watcher() (bool, string) {
	if c.ix != nil {
		if on, _ := c.ix.Watching(); on {
			return true, "this process"
		}
	}
	lock := flock.New(filepath.Join(c.st.Dir(), state.WatchLockFile))
	got, err := lock.TryLock()
	if err != nil {
		return false, ""
	}
	if got {
		_ = lock.Unlock() // nobody held it: nobody watches
		return false, ""
	}
	return true, "another process"
}

// healthFreshPaths bounds freshness.paths in cos_health.
const healthFreshPaths = 20

func healthTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	h, err := c.V.Health(ctx)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	pos := c.V.Pos
	out := map[string]any{
		"version":        c.version,
		"started":        h.Started.UTC().Format(time.RFC3339),
		"uptime_seconds": int64(time.Since(h.Started).Seconds()),
		"state_dir":      h.Dir,
		"read_only":      h.ReadOnly,
		"log":            h.Log,
		"projections": healthProjections{
			Seq: pos.Seq, Time: pos.Time, Lag: h.Log.HeadSeq - min(h.Log.HeadSeq, pos.Seq),
			SnapshotSeq: h.SnapshotSeq, Verified: h.Position.Verified, Problem: h.Position.Problem,
		},
		"graph": c.V.Graph.Counts(),
		// state_hash is the projections' combined hash at projections.seq:
		// equal in every process that applied the same events.
		"state_hash": c.V.StateHash(),
		"bus":        h.Bus,
		// integrity: {ok: true}, or {ok: false, first_bad_seq,
		// events_after} when the log is damaged and the answers reflect
		// the state before first_bad_seq.
		"integrity": h.Integrity,
		// writable: false when the state folder is read-only (writes get
		// E_READ_ONLY).
		"writable": h.Writable,
	}
	if h.Search != nil {
		out["search"] = h.Search
	}
	// last_index is the last index run: its root, and whether it finished,
	// failed, is running, or was interrupted (the graph holds part of the
	// tree until the next cos index).
	if h.LastIndex != nil {
		out["last_index"] = h.LastIndex
	}
	// indexing: the index this server began at start of a folder the graph
	// held no index of, while it waits or runs, with its file counts; or
	// one that failed (state "failed", error).
	if run, ok := c.ix.StartStatus(); ok {
		out["indexing"] = run
	}
	if h.SnapshotFailure != nil {
		// snapshot_failure: the last snapshot attempt failed (time, seq,
		// error); start-up replays more of the log until one succeeds.
		out["snapshot_failure"] = h.SnapshotFailure
	}
	// worktree: this server serves a linked git worktree over the main
	// tree's state folder.
	if c.runner != nil && c.runner.worktree != nil {
		out["worktree"] = c.runner.worktree.Status()
	}
	if ms, err := state.ListModules(h.Dir); err == nil {
		out["modules"] = ms
	}
	// freshness compares the graph with the disk; it reads files and runs
	// git, so outside the view.
	if ts := c.freshTargets(); len(ts) > 0 {
		c.afterView = append(c.afterView, func(ctx context.Context) {
			var f healthFreshness
			for i, t := range ts {
				s, err := c.fresh.Scan(ctx, t, healthFreshPaths)
				if err != nil {
					out["freshness"] = freshnessFailure{Root: t.Root, Error: err.Error()}
					return
				}
				if i == 0 {
					f.Scan = s
				}
				if len(ts) > 1 {
					f.Roots = append(f.Roots, rootScan{Name: t.Name, Scan: s})
				}
			}
			f.Watched, f.WatchedBy = c.watcher()
			out["freshness"] = f
		})
	}
	var tm envelope.ToolMeta
	if n := c.V.Graph.Unresolved().GoUnavailableFiles; n > 0 {
		tm.Warnings = append(tm.Warnings, fmt.Sprintf("go not found on PATH: %d Go files read by syntax only (callers are a lower bound); put go on the PATH of the process that indexes, then cos index again", n))
	}
	return out, tm, nil
}
