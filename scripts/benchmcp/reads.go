package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// tableReads holds the round trips of `benchmcp reads`: read tools on the
// graph of a real indexed repository.
const tableReads = "reads"

// Columns of tableReads besides p50 and p95.
const (
	colAnswer  = "answer p50"
	colSampled = "sampled"
	colOf      = "of"
	// colServerCPU is the user + system CPU time cos serve spent per call
	// (/proc/PID/stat before and after a run of one tool).
	colServerCPU = "server cpu/call"
)

// maxFailureExamples is how many failed answers an error quotes.
const maxFailureExamples = 3

// readOp is one timed read: its row and the tool's arguments for a uid.
type readOp struct {
	row  string
	tool string
	args func(uid string) map[string]any
}

// readOps are the reads `benchmcp reads` times, each on every sampled uid.
var readOps = []readOp{
	{"cos_graph_resolve (sampled names)", "cos_graph_resolve", func(uid string) map[string]any {
		return map[string]any{"q": nameOfUID(uid)}
	}},
	{"cos_graph_context (depth 1)", "cos_graph_context", func(uid string) map[string]any {
		return map[string]any{"uid_or_name": uid, "depth": 1}
	}},
	{"cos_graph_impact (depth 2)", "cos_graph_impact", func(uid string) map[string]any {
		return map[string]any{"uid": uid, "depth": 2}
	}},
	{"cos_graph_references (kinds: calls)", "cos_graph_references", func(uid string) map[string]any {
		return map[string]any{"uid": uid, "kinds": []string{"calls"}}
	}},
}

// realReads times the read tools over `cos serve --nats off` on the state
// folder cfg.State, already indexed: it samples cfg.Calls function and
// method uids uniformly (seed cfg.Seed) from the whole graph, then, cfg.Runs
// times, calls each tool once per sampled uid and records the run's p50
// and p95. Every answer must be ok; failures are counted and fail the
// command once the runs are over.
func realReads(ctx context.Context, rec *Recorder, cfg config) error {
	if cfg.State == "" {
		return errors.New("reads: -state (a state folder `cos index` filled) is required")
	}
	if _, err := os.Stat(cfg.State); err != nil {
		return fmt.Errorf("reads: -state: %w", err)
	}
	label := cfg.Label
	if label == "" {
		label = filepath.Base(cfg.Cos)
	}
	uids, graphNodes, err := functionUIDs(ctx, cfg.Cos, cfg.State)
	if err != nil {
		return err
	}
	if len(uids) == 0 {
		return fmt.Errorf("reads: %s has no function or method nodes (index a repository first)", cfg.State)
	}
	sample := sampleUIDs(uids, cfg.Calls, cfg.Seed)
	fmt.Fprintf(os.Stderr, "benchmcp reads: %s: seed %d, %d uids sampled of %d function/method nodes (graph: %d nodes)\n",
		label, cfg.Seed, len(sample), len(uids), graphNodes)
	rec.Add(tableReads, sampleRow(label, cfg.Seed, graphNodes), colSampled, "", float64(len(sample)))
	rec.Add(tableReads, sampleRow(label, cfg.Seed, graphNodes), colOf, "", float64(len(uids)))

	started := time.Now()
	c, err := Start(ctx, cosServer(cfg.Cos, cfg.State, "off"))
	if err != nil {
		return err
	}
	defer c.Close()
	// One untimed call of each tool: the first answer waits for the graph
	// to load, which is startup, not a read.
	for i, o := range readOps {
		tr, err := c.Call(ctx, o.tool, o.args(sample[0]))
		if err != nil {
			return fmt.Errorf("%s (warm-up): %w", o.tool, err)
		}
		if why := notOK(tr); why != "" {
			return fmt.Errorf("%s (warm-up) on %s: %s", o.tool, sample[0], why)
		}
		if i == 0 {
			fmt.Fprintf(os.Stderr, "benchmcp reads: %s: first answer %.2f s after starting cos serve\n", label, time.Since(started).Seconds())
		}
	}
	ops := append(slices.Clone(readOps), ambiguousOp(uids))
	if cfg.Answers != "" {
		if err := writeAnswers(ctx, c, cfg.Answers, ops, sample); err != nil {
			return err
		}
	}
	return timeReads(ctx, c, rec, label, ops, sample, cfg.Runs)
}

// timeReads calls each op once per uid of sample, runs times, and records
// each run's p50, p95 and p99 latency and median answer size under label. An
// answer that is not ok is counted, and any makes it fail once the runs
// are over; a transport failure ends it at once.
func timeReads(ctx context.Context, c *Client, rec *Recorder, label string, ops []readOp, sample []string, runs int) error {
	failures, calls := 0, 0
	var examples []string
	for run := 0; run < runs; run++ {
		for _, o := range ops {
			lat := make([]float64, 0, len(sample))
			size := make([]float64, 0, len(sample))
			cpu0, cpuOK := procCPU(c.PID())
			for _, uid := range sample {
				t := time.Now()
				tr, err := c.Call(ctx, o.tool, o.args(uid))
				d := time.Since(t)
				if err != nil {
					return fmt.Errorf("%s on %s: %w", o.tool, uid, err)
				}
				calls++
				if why := notOK(tr); why != "" {
					failures++
					if len(examples) < maxFailureExamples {
						examples = append(examples, fmt.Sprintf("%s on %s: %s", o.tool, uid, why))
					}
				}
				lat = append(lat, ms(d))
				size = append(size, float64(tr.Bytes)/1000)
			}
			row := label + ": " + o.row
			if cpu1, ok := procCPU(c.PID()); ok && cpuOK {
				// What the server spent per call, whatever the machine's
				// load: the figure to compare two binaries by on a busy
				// machine (10 ms ticks: use 100+ calls).
				rec.Add(tableReads, row, colServerCPU, "ms", ms(cpu1-cpu0)/float64(len(sample)))
			}
			rec.Add(tableReads, row, "p50", "ms", percentile(lat, 0.50))
			rec.Add(tableReads, row, "p95", "ms", percentile(lat, 0.95))
			rec.Add(tableReads, row, "p99", "ms", percentile(lat, 0.99))
			rec.Add(tableReads, row, colAnswer, "KB", percentile(size, 0.50))
		}
	}
	if failures > 0 {
		return fmt.Errorf("reads: %d of %d answers were not ok, e.g.:\n  %s", failures, calls, strings.Join(examples, "\n  "))
	}
	return nil
}

// nameOfUID is the name an agent would type for the node of uid: what
// follows its last "::" ("Client.Do" for code:function:net/http/client.go::Client.Do),
// or the uid itself when it has none.
func nameOfUID(uid string) string {
	if i := strings.LastIndex(uid, "::"); i >= 0 && i+2 < len(uid) {
		return uid[i+2:]
	}
	return uid
}

// ambiguousCount is how many of a graph's most repeated bare names the
// ambiguous-name row asks for.
const ambiguousCount = 10

// rowAmbiguous is the row of resolves by a bare name many nodes carry.
const rowAmbiguous = "cos_graph_resolve (bare ambiguous names)"

// ambiguousOp is the read that resolves, for each sampled uid, one of the
// ambiguousCount bare names the most function and method nodes of uids
// carry ("String", "Close", "New" in a Go tree): an ambiguous name, answered
// with the ranked candidates.
func ambiguousOp(uids []string) readOp {
	names := commonBareNames(uids, ambiguousCount)
	return readOp{rowAmbiguous, "cos_graph_resolve", func(uid string) map[string]any {
		// FNV-1a of the uid: the same name for a uid every run.
		h := uint32(2166136261)
		for i := 0; i < len(uid); i++ {
			h = (h ^ uint32(uid[i])) * 16777619
		}
		return map[string]any{"q": names[h%uint32(len(names))]}
	}}
}

// commonBareNames are the n bare names (nameOfUID after its last '.')
// the most uids carry, most first, ties by name.
func commonBareNames(uids []string, n int) []string {
	count := map[string]int{}
	for _, u := range uids {
		name := nameOfUID(u)
		count[name[strings.LastIndexByte(name, '.')+1:]]++
	}
	names := slices.Collect(maps.Keys(count))
	slices.SortFunc(names, func(a, b string) int {
		if d := count[b] - count[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return names[:min(n, len(names))]
}

// writeAnswers calls each op once per uid of sample and writes one JSON
// line per call to file: {"tool", "args", "answer"}, the answer being the
// envelope with its meta's timings taken out, so the files two binaries
// write on one state folder are equal when their answers are.
func writeAnswers(ctx context.Context, c *Client, file string, ops []readOp, sample []string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, o := range ops {
		for _, uid := range sample {
			args := o.args(uid)
			tr, err := c.Call(ctx, o.tool, args)
			if err != nil {
				f.Close()
				return fmt.Errorf("%s on %s: %w", o.tool, uid, err)
			}
			var env map[string]any
			if err := json.Unmarshal([]byte(tr.Text()), &env); err != nil {
				env = map[string]any{"text": tr.Text()}
			}
			if meta, ok := env["meta"].(map[string]any); ok {
				for _, k := range timingKeys {
					delete(meta, k)
				}
			}
			if err := enc.Encode(map[string]any{"tool": o.tool, "args": args, "answer": env}); err != nil {
				f.Close()
				return err
			}
		}
	}
	return f.Close()
}

// timingKeys are the keys of an envelope's meta that vary from call to
// call on one state: how long the call took.
var timingKeys = []string{"took_ms", "elapsed_ms", "duration_ms"}

// sampleRow is the row that says what was sampled.
func sampleRow(label string, seed uint64, graphNodes int) string {
	return fmt.Sprintf("%s: function + method uids, seed %d (graph of %s nodes)", label, seed, groupThousands(strconv.Itoa(graphNodes)))
}

// notOK says why a tool answer is not an ok envelope ("" when it is).
func notOK(tr ToolResult) string {
	var env struct {
		OK    bool `json:"ok"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(tr.Text()), &env); err != nil {
		return fmt.Sprintf("not an envelope (%v): %.200s", err, tr.Text())
	}
	switch {
	case env.OK && !tr.IsError:
		return ""
	case env.Error != nil:
		return env.Error.Code + ": " + env.Error.Message
	default:
		return fmt.Sprintf("ok %v, isError %v", env.OK, tr.IsError)
	}
}

// sampleUIDs picks n of uids uniformly without replacement, in a fixed
// order for a given seed: a Fisher–Yates shuffle of the sorted uids, cut
// at n. With fewer than n uids every uid is taken, and the shuffled list
// repeats until there are n.
func sampleUIDs(uids []string, n int, seed uint64) []string {
	all := slices.Clone(uids)
	slices.Sort(all)
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	out := make([]string, 0, n)
	for len(out) < n {
		out = append(out, all[:min(n-len(out), len(all))]...)
	}
	return out
}

// functionUIDs are the uids of every function and method node of the graph
// in stateDir, and the graph's node count, read from `cos replay --dump
// nodes` at the log's head (the whole projected graph, not a top-N view;
// seconds on the kernel, where `--dump graph` prints 4M edges for
// minutes). A cos without `--dump nodes` is asked for `--dump graph`.
func functionUIDs(ctx context.Context, cosBin, stateDir string) ([]string, int, error) {
	head, err := exec.CommandContext(ctx, cosBin, "--state-dir", stateDir, "log", "head").Output()
	if err != nil {
		return nil, 0, fmt.Errorf("cos log head: %w", err)
	}
	seq := strings.TrimSpace(string(head))
	if seq == "" || seq == "0" {
		return nil, 0, fmt.Errorf("reads: the log in %s is empty", stateDir)
	}
	uids, total, err := dumpUIDs(ctx, cosBin, stateDir, seq, "nodes")
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchmcp reads: %v; trying --dump graph\n", err)
		return dumpUIDs(ctx, cosBin, stateDir, seq, "graph")
	}
	return uids, total, nil
}

// dumpUIDs runs `cos replay --until seq --dump what` (nodes or graph) and
// returns the function and method uids and the node count it prints.
func dumpUIDs(ctx context.Context, cosBin, stateDir, seq, what string) ([]string, int, error) {
	cmd := exec.CommandContext(ctx, cosBin, "--state-dir", stateDir, "replay", "--until", seq, "--dump", what)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	uids, total, perr := parseGraphDump(stdout, []string{"function", "method"})
	_, _ = io.Copy(io.Discard, stdout) // let it finish writing the edges
	werr := cmd.Wait()
	if werr != nil {
		return nil, 0, fmt.Errorf("cos replay --dump %s: %w: %s", what, werr, strings.TrimSpace(stderr.String()))
	}
	if perr != nil {
		return nil, 0, fmt.Errorf("cos replay --dump %s: %w", what, perr)
	}
	return uids, total, nil
}

// parseGraphDump streams a graph dump ({"counts": …, "nodes": [{uid, kind,
// …}], "edges": …}, or `--dump nodes`' {"nodes": […]}) and returns the uids of the nodes of the given kinds
// and the number of nodes. It stops reading after the nodes, so the edges
// are never held in memory.
func parseGraphDump(r io.Reader, kinds []string) ([]string, int, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, 0, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, err
		}
		key, _ := tok.(string)
		if key != "nodes" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, 0, fmt.Errorf("%q: %w", key, err)
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return nil, 0, err
		}
		var uids []string
		total := 0
		for dec.More() {
			var n struct {
				UID  string `json:"uid"`
				Kind string `json:"kind"`
			}
			if err := dec.Decode(&n); err != nil {
				return nil, 0, fmt.Errorf("node %d: %w", total, err)
			}
			total++
			if slices.Contains(kinds, n.Kind) {
				uids = append(uids, n.UID)
			}
		}
		return uids, total, nil
	}
	return nil, 0, errors.New("no \"nodes\" in the dump")
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, got %v", want, tok)
	}
	return nil
}
