// Package benchanswer measures what one graph answer costs on its way to an
// MCP client over a real, large graph: the Go standard library's source
// (GOROOT/src) indexed once into a state folder, then cos_graph_context and
// cos_graph_references on 100 function nodes, each call through
// tools.Runner.Call with the agent budget and mcp-go's tools/call handling
// and the JSON-RPC response encoding, as cos serve answers on stdio.
//
// It only holds a benchmark, skipped unless COS_BENCH_GOROOT=1:
//
//	COS_BENCH_GOROOT=1 COS_BENCH_STATE=/tmp/cos-goroot-state \
//	  go test -run '^$' -bench GorootAnswers -benchmem ./scripts/benchanswer/
//
// COS_BENCH_STATE names the state folder; the index run (one to two minutes)
// is made only when the folder holds no index of GOROOT/src yet, so repeated
// runs reuse it. Without it a temporary folder is indexed and removed.
package benchanswer
