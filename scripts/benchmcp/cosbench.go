package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Table names: the renderer lays them out in this order.
const (
	tableEventLog    = "eventlog"
	tableRoundTrip   = "roundtrip"
	tableIndex       = "index"
	tablePropagation = "propagation"
	tableCompare     = "compare"
	tableConcurrent  = "concurrent"
	tableToolsBench  = "toolsbench"
)

// Batch sizes of the synthetic load: each call is one log event per kind,
// and an event's data is at most 1 MiB.
const (
	loadNodeBatch = 2000
	loadEdgeBatch = 5000
)

// cosServer is `cos serve` on stateDir over stdio, with NATS off unless
// natsMode says otherwise, plus extra flags.
func cosServer(cosBin, stateDir, natsMode string, extra ...string) Server {
	argv := append([]string{cosBin, "--state-dir", stateDir, "serve", "--nats", natsMode, "--index=false"}, extra...)
	return Server{Argv: argv}
}

// ms is a duration in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// upsertBatches writes nodes then edges through cos_graph_upsert in batches
// of at most batch items; it returns the graph counts the last call
// reported.
func upsertBatches(ctx context.Context, c *Client, nodes []node, edges []edge, nodeBatch, edgeBatch int, reqPrefix string) (graphCounts, error) {
	var counts graphCounts
	call := func(args map[string]any) error {
		tr, err := c.MustOK(ctx, "cos_graph_upsert", args)
		if err != nil {
			return err
		}
		var env struct {
			Data struct {
				Graph graphCounts `json:"graph"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(tr.Text()), &env); err == nil {
			counts = env.Data.Graph
		}
		return nil
	}
	n := 0
	for i := 0; i < len(nodes); i += nodeBatch {
		n++
		if err := call(map[string]any{"nodes": nodes[i:min(i+nodeBatch, len(nodes))], "request_id": fmt.Sprintf("%s-n%d", reqPrefix, n)}); err != nil {
			return counts, err
		}
	}
	for i := 0; i < len(edges); i += edgeBatch {
		n++
		if err := call(map[string]any{"edges": edges[i:min(i+edgeBatch, len(edges))], "request_id": fmt.Sprintf("%s-e%d", reqPrefix, n)}); err != nil {
			return counts, err
		}
	}
	return counts, nil
}

// graphCounts is the "graph" object of an upsert answer and "counts" of an
// export.
type graphCounts struct {
	Nodes int `json:"nodes"`
	Edges int `json:"edges"`
}

// roundTrips loads a synthetic graph of cfg.Nodes nodes into a fresh state
// folder through one `cos serve`, then times cfg.Calls calls of each read
// tool, cfg.Runs times, recording each run's p50 and p95.
func roundTrips(ctx context.Context, rec *Recorder, cfg config) error {
	dir, err := os.MkdirTemp(cfg.TmpDir, "rt-")
	if err != nil {
		return err
	}
	defer removeAll(dir)
	c, err := Start(ctx, cosServer(cfg.Cos, dir, "off"))
	if err != nil {
		return err
	}
	defer c.Close()
	nodes, edges := synthGraph(cfg.Nodes)
	funcs := cfg.Nodes * funcsPerFile / (funcsPerFile + 1)
	t0 := time.Now()
	counts, err := upsertBatches(ctx, c, nodes, edges, loadNodeBatch, loadEdgeBatch, "load")
	if err != nil {
		return fmt.Errorf("load %d nodes: %w", cfg.Nodes, err)
	}
	// The search index follows the log on its own: wait until the last
	// name resolves before timing.
	last := name(funcs - 1)
	for {
		tr, err := c.Call(ctx, "cos_graph_resolve", map[string]any{"q": last, "limit": 1})
		if err != nil {
			return err
		}
		if !tr.IsError && containsUID(tr.Text(), funcUID(funcs-1)) {
			break
		}
		if time.Since(t0) > 30*time.Minute {
			return fmt.Errorf("search index never caught up with %s", last)
		}
		time.Sleep(50 * time.Millisecond)
	}
	loaded := time.Since(t0)
	rows := fmt.Sprintf("%d nodes, %d edges", counts.Nodes, counts.Edges)
	rec.Add(tableRoundTrip, "load through cos_graph_upsert, whole load ("+rows+")", "p50", "s", loaded.Seconds())
	type op struct {
		row  string
		tool string
		args func(i int) map[string]any
	}
	pick := func(i int) int { return (i*104729 + 11) % funcs }
	ops := []op{
		{"resolve, exact uid", "cos_graph_resolve", func(i int) map[string]any { return map[string]any{"q": funcUID(pick(i))} }},
		{"resolve, exact name", "cos_graph_resolve", func(i int) map[string]any { return map[string]any{"q": name(pick(i))} }},
		{"resolve, fuzzy (one typo)", "cos_graph_resolve", func(i int) map[string]any { return map[string]any{"q": typo(pick(i))} }},
		{"context (depth 1)", "cos_graph_context", func(i int) map[string]any { return map[string]any{"uid_or_name": funcUID(pick(i))} }},
		{"impact (depth 2)", "cos_graph_impact", func(i int) map[string]any { return map[string]any{"uid": funcUID(pick(i))} }},
		{"export (default: top 500 by degree)", "cos_graph_export", func(int) map[string]any { return map[string]any{} }},
	}
	for run := 0; run < cfg.Runs; run++ {
		for _, o := range ops {
			lat := make([]float64, 0, cfg.Calls)
			for i := 0; i < cfg.Calls; i++ {
				t := time.Now()
				if _, err := c.MustOK(ctx, o.tool, o.args(run*cfg.Calls+i)); err != nil {
					return fmt.Errorf("%s: %w", o.row, err)
				}
				lat = append(lat, ms(time.Since(t)))
			}
			rec.Add(tableRoundTrip, o.row, "p50", "ms", percentile(lat, 0.50))
			rec.Add(tableRoundTrip, o.row, "p95", "ms", percentile(lat, 0.95))
		}
	}
	return nil
}

// containsUID reports whether an envelope's text names uid as a JSON string.
func containsUID(text, uid string) bool {
	b, _ := json.Marshal(uid)
	return strings.Contains(text, string(b))
}

// propagation starts two `cos serve` on one state folder, writes a new
// node through the first and polls the second with cos_graph_resolve until
// it answers with the node: the time from the write's acknowledgement to
// the other process's first answer that has it.
func propagation(ctx context.Context, rec *Recorder, cfg config, natsMode string) error {
	dir, err := os.MkdirTemp(cfg.TmpDir, "prop-")
	if err != nil {
		return err
	}
	defer removeAll(dir)
	a, err := Start(ctx, cosServer(cfg.Cos, dir, natsMode))
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := Start(ctx, cosServer(cfg.Cos, dir, natsMode))
	if err != nil {
		return err
	}
	defer b.Close()
	row := "write in one `cos serve`, visible in another (--nats " + natsMode + ")"
	for run := 0; run < cfg.Runs; run++ {
		lat := make([]float64, 0, cfg.Calls)
		polls := 0
		for i := 0; i < cfg.Calls; i++ {
			uid := fmt.Sprintf("code:function:prop/r%d.go::Probe%d", run, i)
			args := map[string]any{"nodes": []node{{UID: uid, Kind: "function", Label: "Probe" + strconv.Itoa(i)}}}
			if _, err := a.MustOK(ctx, "cos_graph_upsert", args); err != nil {
				return err
			}
			acked := time.Now()
			for {
				polls++
				tr, err := b.Call(ctx, "cos_graph_context", map[string]any{"uid_or_name": uid})
				if err != nil {
					return err
				}
				if !tr.IsError {
					break
				}
				if time.Since(acked) > time.Minute {
					return fmt.Errorf("%s never became visible in the second process", uid)
				}
			}
			lat = append(lat, ms(time.Since(acked)))
		}
		rec.Add(tablePropagation, row, "p50", "ms", percentile(lat, 0.50))
		rec.Add(tablePropagation, row, "p95", "ms", percentile(lat, 0.95))
		rec.Add(tablePropagation, row, "reads until visible", "", float64(polls)/float64(cfg.Calls))
	}
	return nil
}

// indexRuns times `cos index` of root into a fresh state folder (full),
// then again with nothing changed, cfg.Runs times.
func indexRuns(ctx context.Context, rec *Recorder, cfg config, root string) error {
	for run := 0; run < cfg.Runs; run++ {
		dir, err := os.MkdirTemp(cfg.TmpDir, "index-")
		if err != nil {
			return err
		}
		for _, pass := range []string{"full", "no change"} {
			if err := indexOnce(ctx, rec, tableIndex, pass, cfg.Cos, dir, root); err != nil {
				removeAll(dir)
				return err
			}
		}
		if fi, err := dirSize(dir); err == nil {
			rec.Add(tableIndex, "full", "state folder", "MB", float64(fi)/1e6)
		}
		removeAll(dir)
	}
	return nil
}

// indexReport is the part of `cos index --json` the tables show.
type indexReport struct {
	Projected float64 `json:"projected_seconds"`
	Report    struct {
		Seconds      float64 `json:"seconds"`
		FilesSeen    int     `json:"files_seen"`
		FilesChanged int     `json:"files_changed"`
		Nodes        int     `json:"nodes"`
		Edges        int     `json:"edges"`
	} `json:"report"`
}

// indexOnce runs `cos index --json` of root into stateDir and records, in
// table at row, its wall time, CPU time (user + system), peak RSS, the
// phases it reports and what it saw.
func indexOnce(ctx context.Context, rec *Recorder, table, row, cosBin, stateDir, root string) error {
	out, m, err := runMeasured(cosCommand(ctx, cosBin, "--state-dir", stateDir, "index", "--json", "--no-progress", root))
	if err != nil {
		return fmt.Errorf("cos index %s (%s): %w", root, row, err)
	}
	var rep indexReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return fmt.Errorf("cos index %s (%s): --json: %w", root, row, err)
	}
	addMeasured(rec, table, row, m)
	rec.Add(table, row, "extract + append", "s", rep.Report.Seconds)
	rec.Add(table, row, "project + search index", "s", rep.Projected)
	rec.Add(table, row, "files seen", "", float64(rep.Report.FilesSeen))
	rec.Add(table, row, "files extracted", "", float64(rep.Report.FilesChanged))
	rec.Add(table, row, "nodes", "", float64(rep.Report.Nodes))
	return nil
}

// dirSize is the total size of the regular files under dir, in bytes.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n, err
}
