package tools

import "sort"

// catalogue lists every tool constructor; each file of tools adds its own
// through init-free functions listed here, so the set is visible in one
// place.
func catalogue() []*Tool {
	var all []*Tool
	all = append(all, graphReadTools()...)
	all = append(all, graphImpactTool(), graphReferencesTool(), graphRenamePlanTool(), graphPathTool(),
		graphSimilarTool(), graphExportTool(), graphDoctorTool(), graphChangesTool())
	all = append(all, graphEntrypointsTool(), graphTraceTool(), graphAuditTool())
	all = append(all, graphWriteTools()...)
	all = append(all, indexTools()...)
	all = append(all, healthTools()...)
	all = append(all, taskTools()...)
	all = append(all, signalTools()...)
	all = append(all, evidenceTools()...)
	all = append(all, metricTools()...)
	all = append(all, historyTool())
	return withAt(all)
}

// Catalogue returns every tool's spec, sorted by name: what a transport
// lists (MCP tools/list) and documents. The specs are static; a Runner
// serves the same set.
func Catalogue() []*Tool {
	all := catalogue()
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}
