package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/tools/envelope"
)

func healthTools() []*Tool {
	return []*Tool{{
		Name: "cos_health",
		Description: "The server's health: log head, projection position and lag, newest snapshot seq, bus state and the " +
			"cos processes seen on it, uptime, build version, graph counts, and the search index slot and checkpoint.",
		Layer: envelope.LayerHealth, ReadOnly: true, Idempotent: true,
		Example: `{}`,
		Handler: healthTool,
	}}
}

// healthLog is the log part of cos_health.
type healthLog struct {
	HeadSeq  uint64 `json:"head_seq"`
	HeadHash string `json:"head_hash,omitempty"`
	Path     string `json:"path"`
}

// healthProjections is the projection part of cos_health: where the
// projections are, how far behind the head (lag, in events), and the newest
// snapshot on disk.
type healthProjections struct {
	Seq         uint64    `json:"seq"`
	Time        time.Time `json:"time"`
	Lag         uint64    `json:"lag"`
	SnapshotSeq uint64    `json:"snapshot_seq"`
}

// healthSearch is the search index part of cos_health.
type healthSearch struct {
	Slot       int    `json:"slot"`
	Checkpoint uint64 `json:"checkpoint"`
	Lag        uint64 `json:"lag"`
}

// healthBus is the bus part of cos_health.
type healthBus struct {
	bus.State
	Processes []bus.Peer `json:"processes"`
}

func healthTool(_ context.Context, c *Call) (any, envelope.ToolMeta, error) {
	s := c.S
	head, err := s.log.Head()
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	pos := c.Pos
	out := map[string]any{
		"version":        s.opts.Version,
		"started":        s.started.UTC().Format(time.RFC3339),
		"uptime_seconds": int64(time.Since(s.started).Seconds()),
		"state_dir":      s.opts.StateDir,
		"read_only":      s.ReadOnly(),
		"log":            healthLog{HeadSeq: head.Seq, HeadHash: head.Hash, Path: s.log.Path()},
		"projections": healthProjections{
			Seq: pos.Seq, Time: pos.Time, Lag: sub(head.Seq, pos.Seq),
			SnapshotSeq: newestSnapshot(filepath.Join(s.opts.StateDir, projections.SnapshotDirName)),
		},
		"graph": s.graph.Counts(),
		// state_hash is the projections' combined hash at projections.seq:
		// equal in every process that applied the same events.
		"state_hash": s.stateHashInView(),
	}
	if s.index != nil {
		cp := s.index.Checkpoint()
		out["search"] = healthSearch{Slot: s.index.Slot(), Checkpoint: cp, Lag: sub(pos.Seq, cp)}
	}
	if s.bus != nil {
		out["bus"] = healthBus{State: s.bus.State(), Processes: s.bus.Peers()}
	} else {
		out["bus"] = healthBus{State: bus.State{Mode: bus.ModeOff}, Processes: []bus.Peer{}}
	}
	if ms, err := ListModules(s.opts.StateDir); err == nil {
		out["modules"] = ms
	}
	return out, envelope.ToolMeta{}, nil
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// newestSnapshot returns the seq of the newest snapshot file in dir
// (projections names them snap-<seq, 20 digits>.bin), or 0 when none.
func newestSnapshot(dir string) uint64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var best uint64
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "snap-") || !strings.HasSuffix(name, ".bin") {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, "snap-"), ".bin"), 10, 64); err == nil && n > best {
			best = n
		}
	}
	return best
}
