package mcp

import (
	"bytes"
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
}

// changesOf sums up a delivery of committed events.
func changesOf(ch state.Changes) *ResourceChanges {
	c := &ResourceChanges{all: ch.Lost, any: ch.Lost || len(ch.Events) > 0,
		tasks: map[string]bool{}, sessions: map[string]bool{}, paths: map[string]bool{}}
	for _, ev := range ch.Events {
		switch {
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
		return c.tasks[ref.ID]
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
