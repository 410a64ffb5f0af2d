package main

import "fmt"

// Word lists of the synthetic names: verb × adjective × noun gives
// len(verbs)·len(adjectives)·len(nouns) distinct CamelCase names without
// digits, so a one-letter typo is a realistic fuzzy query.
var (
	verbs = []string{"Parse", "Build", "Load", "Write", "Read", "Open", "Close", "Send", "Fetch", "Store",
		"Merge", "Split", "Check", "Apply", "Render", "Encode", "Decode", "Resolve", "Index", "Scan",
		"Watch", "Start", "Stop", "Flush", "Sync", "Copy", "Move", "Find", "Match", "Sort",
		"Count", "Track", "Mark", "Trim", "Wrap", "Emit", "Drain", "Queue", "Route", "Serve",
		"Dial", "Bind", "Lock", "Grant", "Sign", "Hash", "Probe", "Retry", "Batch", "Prune"}
	adjectives = []string{"Local", "Remote", "Cached", "Stale", "Fresh", "Empty", "Full", "Nested", "Flat", "Raw",
		"Signed", "Sealed", "Frozen", "Lazy", "Eager", "Shared", "Private", "Public", "Hidden", "Open",
		"Closed", "Pending", "Active", "Idle", "Broken", "Valid", "Strict", "Loose", "Dirty", "Clean",
		"Sparse", "Dense", "Global", "Inner", "Outer", "Upper", "Lower", "Early", "Late", "Short",
		"Long", "Quick", "Slow", "Small", "Large", "Plain", "Fancy", "Single", "Double", "Final"}
	nouns = []string{"Config", "Buffer", "Header", "Record", "Stream", "Socket", "Handler", "Request", "Response", "Session",
		"Token", "Cursor", "Window", "Packet", "Frame", "Table", "Column", "Schema", "Query", "Result",
		"Cache", "Queue", "Worker", "Client", "Server", "Router", "Filter", "Parser", "Lexer", "Symbol",
		"Module", "Package", "Bundle", "Report", "Metric", "Tracer", "Logger", "Signal", "Timer", "Ticker",
		"Store", "Index", "Shard", "Replica", "Ledger", "Journal", "Policy", "Secret", "Digest", "Manifest"}
)

// maxSynthNodes is how many distinct synthetic names exist.
var maxSynthNodes = len(verbs) * len(adjectives) * len(nouns)

// funcsPerFile is how many synthetic functions share one file.
const funcsPerFile = 100

// name is the i-th synthetic function name (0 ≤ i < maxSynthNodes).
func name(i int) string {
	return verbs[i%len(verbs)] + adjectives[(i/len(verbs))%len(adjectives)] + nouns[(i/(len(verbs)*len(adjectives)))%len(nouns)]
}

// typo is name(i) with its second and third letters swapped: a fuzzy query
// that no node matches exactly.
func typo(i int) string {
	b := []byte(name(i))
	b[1], b[2] = b[2], b[1]
	return string(b)
}

// filePath is the repo-relative file of the i-th function.
func filePath(i int) string {
	return fmt.Sprintf("pkg%03d/f%03d.go", i/funcsPerFile/100, (i/funcsPerFile)%100)
}

// funcUID is the uid of the i-th synthetic function.
func funcUID(i int) string { return "code:function:" + filePath(i) + "::" + name(i) }

// fileUID is the uid of the file holding the i-th function.
func fileUID(i int) string { return "code:file:" + filePath(i) }

// node is one cos_graph_upsert node.
type node struct {
	UID   string `json:"uid"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	Path  string `json:"path,omitempty"`
	Line  int    `json:"line,omitempty"`
}

// edge is one cos_graph_upsert edge.
type edge struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Type   string `json:"type"`
}

// synthGraph is a code graph of total nodes: files of funcsPerFile
// functions each, every file containing its functions, every function
// calling the next one and a far one. total counts files and functions.
func synthGraph(total int) ([]node, []edge) {
	funcs := total * funcsPerFile / (funcsPerFile + 1)
	nodes := make([]node, 0, total)
	var edges []edge
	for i := 0; i < funcs; i++ {
		if i%funcsPerFile == 0 {
			nodes = append(nodes, node{UID: fileUID(i), Kind: "file", Label: filePath(i), Path: filePath(i)})
		}
		nodes = append(nodes, node{UID: funcUID(i), Kind: "function", Label: name(i), Path: filePath(i), Line: 1 + i%funcsPerFile*10})
		edges = append(edges, edge{Source: fileUID(i), Target: funcUID(i), Type: "contains"})
		if i+1 < funcs {
			edges = append(edges, edge{Source: funcUID(i), Target: funcUID(i + 1), Type: "calls"})
		}
		if far := (i*7919 + 13) % funcs; far != i {
			edges = append(edges, edge{Source: funcUID(i), Target: funcUID(far), Type: "calls"})
		}
	}
	for len(nodes) < total { // round up with files of no function
		nodes = append(nodes, node{UID: fmt.Sprintf("code:file:extra/x%06d.go", len(nodes)), Kind: "file", Label: "x.go", Path: fmt.Sprintf("extra/x%06d.go", len(nodes))})
	}
	return nodes, edges
}
