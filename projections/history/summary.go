package history

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/metrics"
	"github.com/cos-dev/cos/projections/tasks"
)

// namesShown is how many node names a summary lists per change.
const namesShown = 3

// summarize returns the summary of ev and records what it touched; x.mu is
// held. pos is ev's entry.
func (x *Index) summarize(ev *eventlog.Event, pos uint32, t *touches) string {
	if p := x.pending; p != nil && !(ev.Type == graph.TypeFileExtracted && continues(ev, p)) {
		x.settle()
	}
	if id, ok := tasks.IDOfStream(ev.Stream); ok {
		t.tasks = append(t.tasks, id)
		return x.taskEvent(id, ev)
	}
	switch ev.Type {
	case tasks.TypeRelationsUpdated:
		var p tasks.RelationsUpdated
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		t.tasks = append(t.tasks, p.TaskID)
		return p.TaskID + ": " + x.task(p.TaskID).patch(p.Patch)
	case graph.TypeFileExtracted:
		return x.extracted(ev, pos, t)
	case graph.TypeFileRemoved:
		return x.removed(ev, t)
	case graph.TypeNodesUpserted:
		var p graph.NodesUpserted
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		names := make([]string, 0, len(p.Nodes))
		for _, n := range p.Nodes {
			t.uids = append(t.uids, n.UID)
			if n.Path != "" && !slices.Contains(t.paths, n.Path) {
				t.paths = append(t.paths, n.Path)
			}
			names = append(names, n.Label)
		}
		return count(len(p.Nodes), "node") + " upserted" + listed(names)
	case graph.TypeNodesDeleted:
		var p graph.NodesDeleted
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		t.uids = append(t.uids, p.UIDs...)
		return count(len(p.UIDs), "node") + " deleted" + listed(labels(p.UIDs))
	case graph.TypeEdgesUpserted:
		var p graph.EdgesUpserted
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		keys := make([]graph.EdgeKey, len(p.Edges))
		for i, e := range p.Edges {
			keys[i] = e.Key()
		}
		return edgesLine(t, keys, "upserted")
	case graph.TypeEdgesDeleted:
		var p graph.EdgesDeleted
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		return edgesLine(t, p.Edges, "deleted")
	case graph.TypeIndexStarted:
		var p graph.IndexStarted
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		s := "index run of " + p.Root + " started"
		if p.Name != "" {
			s = "index run of root " + p.Name + " (" + p.Root + ") started"
		}
		if p.Commit != "" {
			s += " at " + p.Commit[:min(12, len(p.Commit))]
		}
		if p.Targeted > 0 {
			s += fmt.Sprintf(" (%d paths looked at again)", p.Targeted)
		}
		return s
	case graph.TypeRootRemoved:
		var p graph.RootRemoved
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		if p.Name == "" {
			return "the primary root was removed"
		}
		return "root " + p.Name + " was removed"
	case graph.TypeIndexFinished:
		var p graph.IndexFinished
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		s := fmt.Sprintf("index run finished: %d files seen, %d changed, %d removed, %d events", p.FilesSeen, p.FilesChanged, p.FilesRemoved, p.Events)
		if p.Error != "" {
			s += "; stopped early: " + p.Error
		}
		return s
	case metrics.TypeRecorded:
		var p metrics.Recorded
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		return strings.TrimSpace(p.Name + " = " + strconv.FormatFloat(p.Value, 'g', -1, 64) + " " + p.Unit)
	}
	if strings.HasPrefix(ev.Type, "evidence.") {
		var p evidence.Record
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		var out map[string]json.RawMessage
		_ = json.Unmarshal(p.Output, &out)
		slots := make([]string, 0, len(out))
		for k := range out {
			slots = append(slots, k)
		}
		sort.Strings(slots)
		kind := strings.TrimPrefix(strings.TrimSuffix(ev.Type, "_recorded"), "evidence.")
		s := kind + " recorded"
		if p.Role != "" {
			s = "output of role " + p.Role + " recorded"
		}
		if len(slots) > 0 {
			s += ": " + strings.Join(slots, ", ")
		}
		if p.Task != nil {
			t.tasks = append(t.tasks, p.Task.TaskID)
			s += fmt.Sprintf(" for %s (its code at seq %d: %s)", p.Task.TaskID, p.Task.Seq, count(len(p.Task.Symbols), "symbol"))
		}
		return s
	}
	return ev.Type
}

// taskState is what the index remembers of a task to say "from → to".
type taskState struct {
	title, status, priority, assignee, parent string
	labels, dependsOn                         []string
	descLen                                   int
	signals                                   bool
}

func (x *Index) task(id string) *taskState {
	ts := x.tasks[id]
	if ts == nil {
		ts = &taskState{}
		x.tasks[id] = ts
	}
	return ts
}

// taskEvent summarizes an event of task id's stream.
func (x *Index) taskEvent(id string, ev *eventlog.Event) string {
	ts := x.task(id)
	switch ev.Type {
	case tasks.TypeCreated:
		var p tasks.Created
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		*ts = taskState{title: p.Title, status: p.Status, priority: p.Priority, labels: p.Labels,
			dependsOn: p.DependsOn, parent: p.Parent, descLen: utf8.RuneCountInString(p.Description), signals: p.Signals != nil}
		return fmt.Sprintf("created %q (status %s, priority %s)", p.Title, p.Status, p.Priority)
	case tasks.TypeUpdated:
		var p tasks.Updated
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		return ts.patch(p.Patch)
	case tasks.TypeClaimed:
		var p tasks.Claimed
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		s := "claimed by " + p.Assignee
		if ts.assignee != "" && ts.assignee != p.Assignee {
			s += " (from " + ts.assignee + ")"
		}
		ts.assignee = p.Assignee
		return s
	case tasks.TypeReleased:
		var p tasks.Released
		if json.Unmarshal(ev.Data, &p) != nil {
			return ev.Type
		}
		ts.assignee = ""
		return "released by " + p.Assignee
	}
	return ev.Type
}

// patch applies p to the task and says what it changed, field by field.
func (ts *taskState) patch(p tasks.Patch) string {
	var parts []string
	str := func(name string, cur *string, v *string) {
		if v == nil {
			return
		}
		if *cur != *v {
			parts = append(parts, fmt.Sprintf("%s: %s → %s", name, quoteIf(name, *cur), quoteIf(name, *v)))
		} else {
			parts = append(parts, fmt.Sprintf("%s: %s (unchanged)", name, quoteIf(name, *v)))
		}
		*cur = *v
	}
	list := func(name string, cur *[]string, v *[]string) {
		if v == nil {
			return
		}
		parts = append(parts, fmt.Sprintf("%s: [%s] → [%s]", name, strings.Join(*cur, ", "), strings.Join(*v, ", ")))
		*cur = slices.Clone(*v)
	}
	str("status", &ts.status, p.Status)
	str("priority", &ts.priority, p.Priority)
	str("title", &ts.title, p.Title)
	if p.Description != nil {
		n := utf8.RuneCountInString(*p.Description)
		parts = append(parts, fmt.Sprintf("description: %d → %d characters", ts.descLen, n))
		ts.descLen = n
	}
	list("labels", &ts.labels, p.Labels)
	list("depends_on", &ts.dependsOn, p.DependsOn)
	str("parent", &ts.parent, p.Parent)
	switch {
	case p.ClearSignals:
		parts = append(parts, "signals cleared")
		ts.signals = false
	case p.Signals != nil:
		parts = append(parts, "signals set")
		ts.signals = true
	}
	if len(parts) == 0 {
		return "updated (no field changed)"
	}
	return strings.Join(parts, "; ")
}

func quoteIf(field, v string) string {
	if field == "title" || v == "" {
		return strconv.Quote(v)
	}
	return v
}

// count renders "1 node", "3 nodes".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// listed renders up to namesShown names: " (a, b, c, …)".
func listed(names []string) string {
	if len(names) == 0 {
		return ""
	}
	shown := names[:min(len(names), namesShown)]
	s := " (" + strings.Join(shown, ", ")
	if len(names) > namesShown {
		s += ", …"
	}
	return s + ")"
}

// byType renders edge counts per type: " (calls 3, imports 1)".
// edgesLine is the summary of edges written by an agent (verb: upserted or
// deleted) — how many, by type — and notes their ends as touched.
func edgesLine(t *touches, edges []graph.EdgeKey, verb string) string {
	types := map[string]int{}
	for _, e := range edges {
		t.uids = append(t.uids, e.Source, e.Target)
		types[e.Type]++
	}
	return count(len(edges), "edge") + " " + verb + byType(types)
}

func byType(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + " " + strconv.Itoa(m[k])
	}
	return " (" + strings.Join(keys, ", ") + ")"
}

// labels returns a readable name for each uid: the part after the last
// "::" or ":".
func labels(uids []string) []string {
	out := make([]string, len(uids))
	for i, u := range uids {
		out[i] = labelOf(u)
	}
	return out
}

func labelOf(uid string) string {
	if i := strings.LastIndex(uid, "::"); i >= 0 {
		return uid[i+2:]
	}
	if i := strings.LastIndex(uid, ":"); i >= 0 && i+1 < len(uid) {
		return uid[i+1:]
	}
	return uid
}

// clip cuts s to at most n bytes on a character boundary, ending in "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
