package tools

import "sort"

// catalogue lists every tool constructor; each file of tools adds its own
// through init-free functions listed here, so the set is visible in one
// place.
func catalogue() []*Tool {
	var all []*Tool
	all = append(all, graphReadTools()...)
	all = append(all, graphImpactTool(), graphReferencesTool(), graphRenamePlanTool(), graphPathTool(),
		graphSimilarTool(), graphExportTool(), graphDoctorTool())
	all = append(all, graphWriteTools()...)
	all = append(all, indexTools()...)
	all = append(all, healthTools()...)
	all = append(all, taskTools()...)
	all = append(all, signalTools()...)
	all = append(all, evidenceTools()...)
	all = append(all, metricTools()...)
	return all
}

// register builds the name → tool map.
func (s *Server) register() {
	s.tools = map[string]*Tool{}
	for _, t := range catalogue() {
		s.tools[t.Name] = t
	}
	s.names = s.names[:0]
	for n := range s.tools {
		s.names = append(s.names, n)
	}
	sort.Strings(s.names)
}
