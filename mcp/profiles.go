package mcp

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cos-dev/cos/tools"
)

// Tool profiles: which tools tools/list shows (Options.Tools). Every tool
// stays callable by name; the initialize instructions name each unlisted
// one in a line (unlistedText).
const (
	// ProfileCore is what code questions and task work need.
	ProfileCore = "core"
	// ProfileDefault is every tool but the maintenance ones
	// (maintenanceTools).
	ProfileDefault = "default"
	// ProfileAll lists every tool.
	ProfileAll = "all"
)

// Profiles are the profile names, in the order a usage error names them.
var Profiles = []string{ProfileCore, ProfileDefault, ProfileAll}

// coreTools are the core profile: find a node, read around it, its
// callers and dependents, what a diff breaks; the board, a task, claiming
// and updating it. Creating tasks is left out: planning is rarer than
// working, and cos_task_create stays callable by name.
var coreTools = []string{
	"cos_graph_resolve", "cos_graph_context", "cos_graph_references", "cos_graph_impact", "cos_graph_changes",
	"cos_task_board", "cos_task_get", "cos_task_claim", "cos_task_update",
}

// maintenanceTools are what the default profile leaves out: writing graph
// nodes by hand, repairing and exporting the graph, and the metrics an
// orchestrator records. An agent answering code questions or working a
// task rarely needs them; they stay callable by name.
var maintenanceTools = []string{
	"cos_graph_upsert", "cos_graph_delete", "cos_graph_doctor", "cos_graph_export",
	"cos_metric_record", "cos_metric_query",
}

// ParseProfile checks a profile name ("" is the default profile).
func ParseProfile(name string) (string, error) {
	switch name {
	case "":
		return ProfileDefault, nil
	case ProfileCore, ProfileDefault, ProfileAll:
		return name, nil
	}
	return "", fmt.Errorf("tool profile %q: want one of %s", name, strings.Join(Profiles, ", "))
}

// profileListed is the set of tool names profile lists; nil lists all.
func profileListed(profile string) map[string]bool {
	var names []string
	switch profile {
	case ProfileCore:
		names = coreTools
	case ProfileDefault, "":
		out := map[string]bool{}
		for _, t := range tools.Catalogue() {
			if !t.HubOnly && !slices.Contains(maintenanceTools, t.Name) {
				out[t.Name] = true
			}
		}
		return out
	default:
		return nil
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// unlistedText is the instructions' line per tool the profile leaves out
// of tools/list ("" when it lists them all): its name and what it does.
func unlistedText(all []*tools.Tool, listed map[string]bool) string {
	if listed == nil {
		return ""
	}
	var lines []string
	for _, t := range all {
		if !listed[t.Name] {
			lines = append(lines, t.Name+": "+strings.TrimSuffix(firstSentence(t.Description), "."))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	sort.Strings(lines)
	return "\nMore tools, callable by name though tools/list leaves them out (E_ARGUMENT names their arguments):\n" +
		strings.Join(lines, "\n")
}

// firstSentence is s up to its first ". " (all of s when it has none).
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i]
	}
	return s
}
