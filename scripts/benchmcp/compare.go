package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Column names of the side-by-side tables.
const (
	colCos    = "cos"
	colMemory = "memory server"
)

// system is one MCP memory store under the same workload: how to start a
// server on a store, and how each step of the workload maps to its tools.
type system struct {
	col string
	// fresh makes a new empty store and returns the server to start on it
	// and a cleanup that deletes the store.
	fresh func() (Server, func(), error)
	// createEntities and createRelations write one batch (the synthetic
	// entities of those indexes, the relations between them) in one call;
	// an error is a transport failure or an error answer.
	createEntities  func(ctx context.Context, c *Client, ents []int) error
	createRelations func(ctx context.Context, c *Client, rels []relation) error
	// lookup finds entity i by its name; open reads entity i and its
	// relations; readAll reads the whole graph (readAllNote says how).
	lookup      func(ctx context.Context, c *Client, i int) (ToolResult, error)
	open        func(ctx context.Context, c *Client, i int) (ToolResult, error)
	readAll     func(ctx context.Context, c *Client) (ToolResult, error)
	readAllNote string
	// survivors reopens the store after the concurrent writers and says
	// whether it loads and which acknowledged entities and relations it
	// still holds.
	survivors func(ctx context.Context, srv Server) stored
}

// stored is what a reopened store holds: whether it loads, how many
// entities and relations, and the entity names when the system lists them
// cheaply (nil otherwise: then only the counts are compared).
type stored struct {
	loads     bool
	entities  int
	names     map[string]bool
	relations int
}

// relation is one from→to "calls" relation between entity indexes.
type relation struct{ from, to int }

// workloadRelations are two distinct relations per entity in [lo, hi): to
// the next one and the one after, wrapping inside the range (so a writer
// owning the range never needs another writer's entities). hi-lo ≥ 3.
func workloadRelations(lo, hi int) []relation {
	n := hi - lo
	out := make([]relation, 0, 2*n)
	for i := 0; i < n; i++ {
		out = append(out, relation{lo + i, lo + (i+1)%n})
		out = append(out, relation{lo + i, lo + (i+2)%n})
	}
	return out
}

func cosSystem(cfg config) system {
	var dir string
	return system{
		col: colCos,
		fresh: func() (Server, func(), error) {
			d, err := os.MkdirTemp(cfg.TmpDir, "cmp-cos-")
			if err != nil {
				return Server{}, nil, err
			}
			dir = d
			return cosServer(cfg.Cos, d, "off", "--budget-chars", "5000000"), func() { removeAll(d) }, nil
		},
		createEntities: func(ctx context.Context, c *Client, ents []int) error {
			ns := make([]node, len(ents))
			for k, i := range ents {
				ns[k] = node{UID: funcUID(i), Kind: "function", Label: name(i), Path: filePath(i)}
			}
			_, err := c.MustOK(ctx, "cos_graph_upsert", map[string]any{"nodes": ns})
			return err
		},
		createRelations: func(ctx context.Context, c *Client, rels []relation) error {
			es := make([]edge, len(rels))
			for k, r := range rels {
				es[k] = edge{Source: funcUID(r.from), Target: funcUID(r.to), Type: "calls"}
			}
			_, err := c.MustOK(ctx, "cos_graph_upsert", map[string]any{"edges": es})
			return err
		},
		lookup: func(ctx context.Context, c *Client, i int) (ToolResult, error) {
			return c.MustOK(ctx, "cos_graph_resolve", map[string]any{"q": name(i)})
		},
		open: func(ctx context.Context, c *Client, i int) (ToolResult, error) {
			return c.MustOK(ctx, "cos_graph_context", map[string]any{"uid_or_name": funcUID(i)})
		},
		readAll: func(ctx context.Context, c *Client) (ToolResult, error) {
			return c.MustOK(ctx, "cos_graph_export", map[string]any{"max_nodes": 2000})
		},
		readAllNote: "cos_graph_export, max_nodes 2000 (its cap)",
		survivors: func(ctx context.Context, srv Server) stored {
			verify := exec.CommandContext(ctx, cfg.Cos, "--state-dir", dir, "verify")
			chainOK := verify.Run() == nil
			c, err := Start(ctx, srv)
			if err != nil {
				return stored{}
			}
			defer c.Close()
			tr, err := c.Call(ctx, "cos_health", map[string]any{})
			if err != nil || tr.IsError {
				return stored{}
			}
			var env struct {
				Data struct {
					Graph graphCounts `json:"graph"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(tr.Text()), &env); err != nil {
				return stored{}
			}
			if _, err := c.MustOK(ctx, "cos_graph_export", map[string]any{"max_nodes": 2000}); err != nil {
				return stored{}
			}
			// The store holds only this workload's writes: the counts say
			// how many survived.
			return stored{loads: chainOK, entities: env.Data.Graph.Nodes, relations: env.Data.Graph.Edges}
		},
	}
}

func memorySystem(cfg config) system {
	var file string
	return system{
		col: colMemory,
		fresh: func() (Server, func(), error) {
			d, err := os.MkdirTemp(cfg.TmpDir, "cmp-mem-")
			if err != nil {
				return Server{}, nil, err
			}
			file = filepath.Join(d, "memory.jsonl")
			return Server{Argv: []string{cfg.Node, cfg.MemoryJS}, Env: []string{"MEMORY_FILE_PATH=" + file}}, func() { removeAll(d) }, nil
		},
		createEntities: func(ctx context.Context, c *Client, ents []int) error {
			es := make([]map[string]any, len(ents))
			for k, i := range ents {
				es[k] = map[string]any{"name": name(i), "entityType": "function", "observations": []string{"defined in " + filePath(i)}}
			}
			_, err := c.MustOK(ctx, "create_entities", map[string]any{"entities": es})
			return err
		},
		createRelations: func(ctx context.Context, c *Client, rels []relation) error {
			rs := make([]map[string]any, len(rels))
			for k, r := range rels {
				rs[k] = map[string]any{"from": name(r.from), "to": name(r.to), "relationType": "calls"}
			}
			_, err := c.MustOK(ctx, "create_relations", map[string]any{"relations": rs})
			return err
		},
		lookup: func(ctx context.Context, c *Client, i int) (ToolResult, error) {
			return c.MustOK(ctx, "search_nodes", map[string]any{"query": name(i)})
		},
		open: func(ctx context.Context, c *Client, i int) (ToolResult, error) {
			return c.MustOK(ctx, "open_nodes", map[string]any{"names": []string{name(i)}})
		},
		readAll: func(ctx context.Context, c *Client) (ToolResult, error) {
			return c.MustOK(ctx, "read_graph", map[string]any{})
		},
		readAllNote: "read_graph",
		survivors: func(ctx context.Context, srv Server) stored {
			names, rels, fileOK := readMemoryFile(file)
			st := stored{entities: len(names), names: names, relations: rels}
			c, err := Start(ctx, srv)
			if err != nil {
				return st
			}
			defer c.Close()
			tr, err := c.Call(ctx, "read_graph", map[string]any{})
			st.loads = err == nil && !tr.IsError && fileOK
			return st
		},
	}
}

// readMemoryFile reads the memory server's JSONL store line by line,
// keeping what parses: entity names, the relation count, and whether every
// line parsed (the server itself refuses the whole file on one bad line).
func readMemoryFile(path string) (map[string]bool, int, bool) {
	ents := map[string]bool{}
	rels := 0
	f, err := os.Open(path)
	if err != nil {
		return ents, 0, false
	}
	defer f.Close()
	ok := true
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var item struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		if json.Unmarshal(sc.Bytes(), &item) != nil {
			ok = false
			continue
		}
		switch item.Type {
		case "entity":
			ents[item.Name] = true
		case "relation":
			rels++
		}
	}
	return ents, rels, ok && sc.Err() == nil
}

// batches splits xs into slices of at most n.
func batches[T any](xs []T, n int) [][]T {
	var out [][]T
	for i := 0; i < len(xs); i += n {
		out = append(out, xs[i:min(i+n, len(xs))])
	}
	return out
}

// sideBySide runs the single-writer workload on sys cfg.Runs times, each
// on a fresh store: create cfg.Entities entities and twice as many
// relations in batches of cfg.Batch, look up and open cfg.Lookups names,
// read the whole graph cfg.Reads times.
func sideBySide(ctx context.Context, rec *Recorder, cfg config, sys system) error {
	ents := make([]int, cfg.Entities)
	for i := range ents {
		ents[i] = i
	}
	rels := workloadRelations(0, cfg.Entities)
	for run := 0; run < cfg.Runs; run++ {
		srv, cleanup, err := sys.fresh()
		if err != nil {
			return err
		}
		err = func() error {
			c, err := Start(ctx, srv)
			if err != nil {
				return err
			}
			defer c.Close()
			t := time.Now()
			for _, b := range batches(ents, cfg.Batch) {
				if err := sys.createEntities(ctx, c, b); err != nil {
					return err
				}
			}
			rec.Add(tableCompare, fmt.Sprintf("create %d entities (batches of %d)", cfg.Entities, cfg.Batch), sys.col, "s", time.Since(t).Seconds())
			t = time.Now()
			for _, b := range batches(rels, cfg.Batch) {
				if err := sys.createRelations(ctx, c, b); err != nil {
					return err
				}
			}
			rec.Add(tableCompare, fmt.Sprintf("create %d relations (batches of %d)", len(rels), cfg.Batch), sys.col, "s", time.Since(t).Seconds())
			for _, step := range []struct {
				row string
				fn  func(context.Context, *Client, int) (ToolResult, error)
			}{
				{fmt.Sprintf("look up %d names, per call", cfg.Lookups), sys.lookup},
				{fmt.Sprintf("open %d nodes, per call", cfg.Lookups), sys.open},
			} {
				lat := make([]float64, 0, cfg.Lookups)
				for k := 0; k < cfg.Lookups; k++ {
					i := (k*7919 + run) % cfg.Entities
					t := time.Now()
					if _, err := step.fn(ctx, c, i); err != nil {
						return err
					}
					lat = append(lat, ms(time.Since(t)))
				}
				rec.Add(tableCompare, step.row+" (p50)", sys.col, "ms", percentile(lat, 0.5))
			}
			lat := make([]float64, 0, cfg.Reads)
			size := 0
			for k := 0; k < cfg.Reads; k++ {
				t := time.Now()
				tr, err := sys.readAll(ctx, c)
				if err != nil {
					return err
				}
				lat = append(lat, ms(time.Since(t)))
				size = tr.Bytes
			}
			rec.Add(tableCompare, "read the whole graph (p50)", sys.col, "ms", percentile(lat, 0.5))
			rec.Add(tableCompare, "read the whole graph: answer size", sys.col, "kB", float64(size)/1e3)
			rec.SetText(tableCompare, "read the whole graph: tool", sys.col, sys.readAllNote)
			return nil
		}()
		cleanup()
		if err != nil {
			return fmt.Errorf("%s: %w", sys.col, err)
		}
	}
	return nil
}

// concurrentWriters runs the same writes from cfg.Writers server processes
// on one store at once, each owning a contiguous range of entities and the
// relations inside it, then reopens the store: acknowledged writes missing
// from it are lost.
func concurrentWriters(ctx context.Context, rec *Recorder, cfg config, sys system) error {
	for run := 0; run < cfg.Runs; run++ {
		srv, cleanup, err := sys.fresh()
		if err != nil {
			return err
		}
		err = func() error {
			clients := make([]*Client, cfg.Writers)
			for w := range clients {
				c, err := Start(ctx, srv)
				if err != nil {
					return err
				}
				defer c.Close()
				clients[w] = c
			}
			var (
				mu        sync.Mutex
				ackedEnts = map[string]bool{}
				ackedRels int
				failed    int
				wg        sync.WaitGroup
			)
			per := cfg.Entities / cfg.Writers
			t := time.Now()
			for w, c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					lo, hi := w*per, (w+1)*per
					ents := make([]int, 0, per)
					for i := lo; i < hi; i++ {
						ents = append(ents, i)
					}
					for _, b := range batches(ents, cfg.Batch) {
						err := sys.createEntities(ctx, c, b)
						mu.Lock()
						if err == nil {
							for _, i := range b {
								ackedEnts[name(i)] = true
							}
						} else {
							failed += len(b)
						}
						mu.Unlock()
					}
					for _, b := range batches(workloadRelations(lo, hi), cfg.Batch) {
						err := sys.createRelations(ctx, c, b)
						mu.Lock()
						if err == nil {
							ackedRels += len(b)
						} else {
							failed += len(b)
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			wall := time.Since(t)
			for _, c := range clients {
				c.Close()
			}
			st := sys.survivors(ctx, srv)
			lostEnts := max(0, len(ackedEnts)-st.entities)
			if st.names != nil {
				lostEnts = 0
				for n := range ackedEnts {
					if !st.names[n] {
						lostEnts++
					}
				}
			}
			lostRels := max(0, ackedRels-st.relations)
			rec.Add(tableConcurrent, fmt.Sprintf("%d writers: wall time", cfg.Writers), sys.col, "s", wall.Seconds())
			rec.Add(tableConcurrent, "acknowledged writes (entities + relations)", sys.col, "", float64(len(ackedEnts)+ackedRels))
			rec.Add(tableConcurrent, "refused writes (error answers)", sys.col, "", float64(failed))
			rec.Add(tableConcurrent, "acknowledged writes lost", sys.col, "", float64(lostEnts+lostRels))
			if st.loads {
				rec.SetText(tableConcurrent, "store loads afterwards", sys.col, "yes")
			} else {
				rec.SetText(tableConcurrent, "store loads afterwards", sys.col, "NO")
			}
			return nil
		}()
		cleanup()
		if err != nil {
			return fmt.Errorf("%s, %d writers: %w", sys.col, cfg.Writers, err)
		}
	}
	return nil
}

// errNoNode is returned when the memory server is requested without node.
var errNoNode = errors.New("node is not on PATH (install Node.js ≥ 18) or -node names no executable")
