package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/state"
)

// This file decides which cos:// resources a batch of committed events may
// have changed, for resources/subscribe.

// ResourceChanges is what one batch of committed events changed, as far as
// resources are concerned (Touches).
type ResourceChanges struct {
	// all: events were dropped (the subscriber fell behind), so every
	// resource counts as changed.
	all      bool
	any      bool
	board    bool
	tasks    map[string]bool
	sessions map[string]bool
	// paths are the files graph events extracted or removed; graph the
	// graph events, searched for a node's uid.
	paths map[string]bool
	graph []eventlog.Event
	// firstSeq is the seq of the batch's first event; mayNotice is set
	// when the batch may add a change under a task (a graph file event or
	// a derived footprint); noticed are the tasks it did add one to
	// (noticeTasks).
	firstSeq  uint64
	mayNotice bool
	noticed   map[string]bool
}

// changesOf sums up a delivery of committed events.
func changesOf(ch state.Changes) *ResourceChanges {
	c := &ResourceChanges{all: ch.Lost, any: ch.Lost || len(ch.Events) > 0,
		tasks: map[string]bool{}, sessions: map[string]bool{}, paths: map[string]bool{}}
	for _, ev := range ch.Events {
		if c.firstSeq == 0 || ev.Seq < c.firstSeq {
			c.firstSeq = ev.Seq
		}
		switch {
		case strings.HasPrefix(ev.Stream, tasks.FootprintStreamPrefix):
			// A derived footprint changes its task (and the board) and may
			// be a change under other tasks.
			c.board, c.mayNotice = true, true
			if id, ok := tasks.IDOfFootprintStream(ev.Stream); ok {
				c.tasks[id] = true
			}
		case strings.HasPrefix(ev.Stream, "task:"):
			c.board = true
			if id, ok := tasks.IDOfStream(ev.Stream); ok {
				c.tasks[id] = true
			}
		case strings.HasPrefix(ev.Stream, evidence.StreamPrefix):
			if s, ok := evidence.SessionOfStream(ev.Stream); ok {
				c.sessions[s] = true
			}
		case ev.Stream == graph.Stream:
			switch ev.Type {
			case graph.TypeFileExtracted, graph.TypeFileRemoved:
				var p struct {
					Path string `json:"path"`
				}
				if json.Unmarshal(ev.Data, &p) == nil && p.Path != "" {
					c.paths[p.Path] = true
				}
				c.graph = append(c.graph, ev)
				c.mayNotice = true
			case graph.TypeIndexStarted, graph.TypeIndexFinished:
			default:
				c.graph = append(c.graph, ev)
			}
		}
	}
	return c
}

// Touches reports whether the events may have changed what a read of ref
// answers. The board: any task event; a task: an event of its stream; an
// evidence bundle: an event of its session; health: any event; a node: a
// graph event that extracts or removes the node's file, or whose payload
// names the uid (an edge to it, an upsert or delete). The test for a node
// is cheap rather than exact: a change to a neighbour in another file that
// names no edge to the node is not seen.
func (c *ResourceChanges) Touches(ref ResourceRef) bool {
	if c.all {
		return true
	}
	switch ref.Kind {
	case ResourceHealth:
		return c.any
	case ResourceBoard:
		return c.board
	case ResourceTask:
		return c.tasks[ref.ID] || c.noticed[ref.ID]
	case ResourceEvidence:
		return c.sessions[ref.ID]
	case ResourceNode:
		if p := uidPath(ref.ID); p != "" && c.paths[p] {
			return true
		}
		if len(c.graph) == 0 {
			return false
		}
		quoted, _ := json.Marshal(ref.ID)
		for _, ev := range c.graph {
			if bytes.Contains(ev.Data, quoted) {
				return true
			}
		}
	}
	return false
}

// noticeTasks records which of the tasks ids the batch added a change
// under to (changed_under_you): those whose newest notice, read now, is at
// or after the batch's first seq. newest reads them (tools.Runner
// NewestNotices). A batch that cannot add one reads nothing.
func (c *ResourceChanges) noticeTasks(ctx context.Context, ids []string,
	newest func(context.Context, []string) (map[string]uint64, error)) error {
	if !c.mayNotice || c.all || len(ids) == 0 {
		return nil
	}
	seqs, err := newest(ctx, ids)
	if err != nil {
		return err
	}
	c.noticed = map[string]bool{}
	for id, seq := range seqs {
		if seq > 0 && seq >= c.firstSeq {
			c.noticed[id] = true
		}
	}
	return nil
}

// uidPath returns the repo-relative file a uid lives in, or "" when its
// scheme names none (modules, packages, externals, folders).
func uidPath(uid string) string {
	for _, p := range []string{"code:file:", "doc:file:"} {
		if rest, ok := strings.CutPrefix(uid, p); ok {
			return rest
		}
	}
	for _, p := range []string{"code:function:", "code:class:"} {
		if rest, ok := strings.CutPrefix(uid, p); ok {
			path, _, _ := strings.Cut(rest, "::")
			return path
		}
	}
	for _, p := range []string{"doc:heading:", "config:json:", "config:yaml:", "config:toml:"} {
		if rest, ok := strings.CutPrefix(uid, p); ok {
			path, _, _ := strings.Cut(rest, "#")
			return path
		}
	}
	return ""
}
