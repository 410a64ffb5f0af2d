package indexing

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// A state folder holds any number of roots: folders indexed side by side.
// The first one indexed is the primary root, whose graph paths are
// repo-relative as they always were; every other root has a name, and its
// paths are name//path (graph.RootPath). Indexing a folder
//
//   - that is a root refreshes that root (only its files can be removed);
//   - inside a root refreshes that part of it (a targeted run: nothing
//     outside the folder is looked at or removed);
//   - holding a root is refused (the root would be indexed twice);
//   - anywhere else adds a root.
//
// Removing a root is its own request (RemoveRoot).

// placement is where a folder given to IndexWith goes in the graph.
type placement struct {
	// name is the root's name ("" the primary root), folder its absolute
	// folder.
	name, folder string
	// sub is the folder asked for relative to folder, slash-separated; ""
	// when it is the root itself.
	sub string
	// added says the root is new to the graph; last is the root's last
	// run otherwise.
	added bool
	last  *projections.IndexRun
}

// place finds where abs (absolute, symlinks resolved) goes among the
// graph's roots; want is the name asked for a new root ("" picks one from
// the folder's name). Errors are E_ARGUMENT envelope errors.
func place(abs string, roots []projections.IndexRun, want string) (placement, error) {
	for i := range roots {
		r := &roots[i]
		switch {
		case r.Root == abs:
			if want != "" && want != r.Name {
				return placement{}, envelope.Errorf(envelope.CodeArgument, "%s is already indexed as the root %s; leave out the name to refresh it",
					abs, rootLabel(*r)).WithDetails(map[string]any{"root": r.Root, "name": r.Name})
			}
			return placement{name: r.Name, folder: r.Root, last: r}, nil
		case within(r.Root, abs):
			if want != "" {
				return placement{}, envelope.Errorf(envelope.CodeArgument, "%s lies inside the root %s, so indexing it refreshes that part of the root; leave out the name",
					abs, rootLabel(*r)).WithDetails(map[string]any{"root": r.Root, "name": r.Name})
			}
			rel, err := filepath.Rel(r.Root, abs)
			if err != nil {
				return placement{}, envelope.Errorf(envelope.CodePath, "%s: %v", abs, err)
			}
			return placement{name: r.Name, folder: r.Root, sub: filepath.ToSlash(rel), last: r}, nil
		case within(abs, r.Root):
			return placement{}, envelope.Errorf(envelope.CodeArgument,
				"%s holds the indexed root %s (%s); index that root or a folder inside it, or remove the root first (cos index --remove %s)",
				abs, rootLabel(*r), r.Root, removeArg(*r)).WithDetails(map[string]any{"root": r.Root, "name": r.Name})
		}
	}
	hasPrimary := false
	for _, r := range roots {
		hasPrimary = hasPrimary || r.Name == ""
	}
	if !hasPrimary && want == "" {
		// The first root is the primary one: its paths carry no name, so a
		// state folder with one root has the uids it always had. Once the
		// primary root is removed, the next folder added without a name
		// takes its place: the primary folder indexed again gets back the
		// uids it had.
		return placement{folder: abs, added: true}, nil
	}
	if len(roots) == 0 {
		if want != "" {
			return placement{}, envelope.Errorf(envelope.CodeArgument,
				"the first folder indexed into a state folder is its primary root, whose paths carry no name; index %s without a name", abs)
		}
		return placement{folder: abs, added: true}, nil
	}
	taken := make(map[string]bool, len(roots))
	for _, r := range roots {
		taken[r.Name] = true
	}
	if want != "" {
		if err := graph.ValidRootName(want); err != nil {
			return placement{}, envelope.Errorf(envelope.CodeArgument, "%v", err)
		}
		if taken[want] || want == primaryName {
			return placement{}, envelope.Errorf(envelope.CodeArgument, "the name %s is taken by another root; pick another", want)
		}
		return placement{name: want, folder: abs, added: true}, nil
	}
	base := rootNameOf(filepath.Base(abs))
	name := base
	for i := 2; taken[name] || name == primaryName; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return placement{name: name, folder: abs, added: true}, nil
}

// rootNameOf makes a root name of a folder's base name: every character a
// name may not hold becomes '-', and a name that would not start with a
// letter or digit gets "root" in front.
func rootNameOf(base string) string {
	b := []byte(base)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	name := string(b)
	if len(name) > 48 {
		name = name[:48]
	}
	if graph.ValidRootName(name) != nil {
		name = "root-" + name
	}
	if graph.ValidRootName(name) != nil {
		name = "root"
	}
	return name
}

// rootLabel names a root for a message: its name, or "primary" for the
// primary root.
func rootLabel(r projections.IndexRun) string {
	if r.Name == "" {
		return primaryName
	}
	return r.Name
}

// removeArg is what names r to RemoveRoot on a command line.
func removeArg(r projections.IndexRun) string {
	if r.Name == "" {
		return primaryName
	}
	return r.Name
}

// primaryName names the primary root in messages and to RemoveRoot; no
// named root may take it.
const primaryName = "primary"

// rootFiles returns the content hashes of the files of the root name,
// keyed by their path inside the root.
func rootFiles(all map[string]string, name string) map[string]string {
	out := make(map[string]string)
	for p, h := range all {
		if n, rel := graph.SplitRoot(p); n == name {
			out[rel] = h
		}
	}
	return out
}

// inRoot rewrites a batch extracted from the root name's folder to the
// graph paths and uids of that root (graph.RootPath, graph.InRoot), in
// place: the primary root's paths stay as they are, and the edges into
// other roots (graph.RootedPath) take those roots' uids.
func inRoot(name string, batch []graph.FileExtracted, removed []string) {
	for i := range batch {
		f := &batch[i]
		f.Path = graph.RootPath(name, f.Path)
		for j := range f.Nodes {
			n := &f.Nodes[j]
			n.UID = graph.InRoot(n.UID, name)
			if n.Path != "" {
				n.Path = graph.RootPath(name, n.Path)
			}
		}
		for j := range f.Edges {
			e := &f.Edges[j]
			e.Source, e.Target = graph.InRoot(e.Source, name), graph.InRoot(e.Target, name)
		}
	}
	for i, p := range removed {
		removed[i] = graph.RootPath(name, p)
	}
}

// cacheDirOf is the extractor cache folder of the root folder abs.
func (x *Indexer) cacheDirOf(abs string) string { return cacheDir(x.st.Dir(), abs) }

// DiskPath returns where the graph path p lies on disk among roots: the
// root's folder and p's path inside it (slash-separated); false when p
// belongs to no root the graph holds.
func DiskPath(roots []projections.IndexRun, p string) (folder, rel string, ok bool) {
	name, rel := graph.SplitRoot(p)
	for _, r := range roots {
		if r.Name == name {
			return r.Root, rel, true
		}
	}
	return "", "", false
}

// RootRemoval is what RemoveRoot did.
type RootRemoval struct {
	// Name and Root are the root removed ("" the primary root) and its
	// folder; FilesRemoved counts its files taken out of the graph.
	Name         string `json:"name"`
	Root         string `json:"root"`
	FilesRemoved int    `json:"files_removed"`
	// FirstSeq and LastSeq bound the events appended.
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
	// Dependents are the other roots whose files with edges into the
	// removed one were extracted again (their edges now end at stubs).
	Dependents []Dependent `json:"dependents,omitempty"`
}

// removeBatch is how many graph.file_removed events RemoveRoot appends
// per transaction.
const removeBatch = 2000

// RemoveRoot takes a root out of the graph: a graph.file_removed for each
// of its files, then graph.root_removed, in transactions of up to 2,000
// files (the last one holding graph.root_removed; an interrupted removal
// leaves the root listed, and removing it again finishes). which is the
// root's name or its folder (absolute or relative to the working
// directory). No other root changes.
//
// Errors: E_READ_ONLY as for IndexWith; E_NOT_FOUND naming the roots when
// which names none; E_UNAVAILABLE when an index run holds the state
// folder past ctx; the log's errors.
func (x *Indexer) RemoveRoot(ctx context.Context, which string) (RootRemoval, error) {
	var out RootRemoval
	if x.st.ReadOnly() || !x.st.Writable() {
		return out, envelope.Errorf(envelope.CodeReadOnly, "removing a root writes, and this state folder is read-only here")
	}
	release, err := x.takeTurn(ctx, 0)
	if err != nil {
		return out, err
	}
	defer release()
	var (
		roots []projections.IndexRun
		files map[string]string
	)
	if err := x.st.ReadStrict(ctx, func(v state.View) {
		roots, files = v.Graph.Roots(), v.Graph.FileHashes()
	}); err != nil {
		return out, err
	}
	folder := which
	if abs, err := filepath.Abs(which); err == nil {
		folder = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			folder = real
		}
	}
	// A name wins over a folder of that name in the working directory.
	var root *projections.IndexRun
	for i := range roots {
		if roots[i].Name == which && which != "" || roots[i].Name == "" && which == primaryName {
			root = &roots[i]
		}
	}
	for i := range roots {
		if root == nil && (roots[i].Root == folder || roots[i].Root == which) {
			root = &roots[i]
		}
	}
	if root == nil {
		names := make([]string, 0, len(roots))
		for _, r := range roots {
			names = append(names, removeArg(r))
		}
		if len(names) == 0 {
			return out, envelope.Errorf(envelope.CodeNotFound, "no root is indexed in this state folder, so there is no %q to remove", which)
		}
		return out, envelope.Errorf(envelope.CodeNotFound, "no indexed root is named %q; the roots are: %s", which, strings.Join(names, ", ")).
			WithDetails(map[string]any{"roots": names})
	}
	out.Name, out.Root = root.Name, root.Root
	// The files of other roots with edges into this one (a Go call through
	// a replace) are extracted again once it is gone: their edges become
	// stubs instead of pointing at nothing.
	var callers map[string][]string
	if err := x.st.ReadStrict(ctx, func(v state.View) { callers = callersFrom(v.Graph, root.Name, roots) }); err != nil {
		return out, err
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		if n, _ := graph.SplitRoot(p); n == root.Name {
			paths = append(paths, p)
		}
	}
	done, err := json.Marshal(graph.RootRemoved{Name: root.Name})
	if err != nil {
		return out, err
	}
	for len(paths) > 0 || out.LastSeq == 0 {
		n := min(len(paths), removeBatch)
		reqs := make([]eventlog.AppendRequest, 0, n+1)
		for _, p := range paths[:n] {
			data, err := json.Marshal(graph.FileRemoved{Path: p})
			if err != nil {
				return out, err
			}
			reqs = append(reqs, eventlog.AppendRequest{Stream: graph.Stream, Client: x.st.Client(),
				Events: []eventlog.Payload{{Type: graph.TypeFileRemoved, Data: data}}})
		}
		paths = paths[n:]
		if len(paths) == 0 {
			reqs = append(reqs, eventlog.AppendRequest{Stream: graph.Stream, Client: x.st.Client(),
				Events: []eventlog.Payload{{Type: graph.TypeRootRemoved, Data: done}}})
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		recs, err := x.st.Append(context.WithoutCancel(ctx), reqs...)
		if err != nil {
			return out, err
		}
		out.FilesRemoved += n
		if out.FirstSeq == 0 {
			out.FirstSeq = recs[0].FirstSeq
		}
		out.LastSeq = recs[len(recs)-1].LastSeq
	}
	// The extractor caches of the folder say which files were indexed:
	// a root indexed again must extract them all.
	if err := os.RemoveAll(x.cacheDirOf(root.Root)); err != nil {
		x.logger.Warn("the removed root's extractor cache stays", "err", err)
	}
	if root.Name == "" {
		// The primary root's folder no longer says where the graph's
		// paths are read from.
		_ = os.Remove(filepath.Join(x.st.Dir(), state.IndexRootFile))
	}
	for _, folder := range slices.Sorted(maps.Keys(callers)) {
		sub, err := x.indexLocked(ctx, folder, RunOptions{Paths: callers[folder], forceOnly: callers[folder]})
		if err != nil {
			x.logger.Warn("the files that used the removed root were not extracted again; index their root again", "root", folder, "err", err)
			continue
		}
		out.Dependents = append(out.Dependents, Dependent{Root: folder, FilesChanged: sub.FilesChanged, LastSeq: sub.LastSeq})
		out.LastSeq = max(out.LastSeq, sub.LastSeq)
	}
	return out, nil
}

// callersFrom returns, by root folder, the files (paths inside the root)
// of the roots other than name whose edges point at a node of the root
// name.
func callersFrom(g *projections.Graph, name string, roots []projections.IndexRun) map[string][]string {
	folders := map[string]string{}
	for _, r := range roots {
		folders[r.Name] = r.Root
	}
	seen := map[string]bool{}
	out := map[string][]string{}
	g.Nodes(func(n graph.Node) bool {
		if n.Path == "" {
			return true
		}
		if owner, _ := graph.SplitRoot(n.Path); owner != name {
			return true
		}
		for _, e := range g.In(n.UID) {
			src, ok := g.Node(e.Source)
			if !ok || src.Path == "" {
				continue
			}
			other, rel := graph.SplitRoot(src.Path)
			if other == name || seen[src.Path] {
				continue
			}
			if folder, ok := folders[other]; ok {
				seen[src.Path] = true
				out[folder] = append(out[folder], rel)
			}
		}
		return true
	})
	return out
}

// IndexPaths runs IndexWith over the paths of each root folder of byRoot
// (targeted runs: RunOptions.Paths of o replaced by each root's list), in
// the order of the folders, and returns the last seq they appended (0 when
// none did). The first error stops it.
func (x *Indexer) IndexPaths(ctx context.Context, byRoot map[string][]string, o RunOptions) (uint64, error) {
	var seq uint64
	for _, root := range slices.Sorted(maps.Keys(byRoot)) {
		o.Paths = byRoot[root]
		rep, err := x.IndexWith(ctx, root, o)
		if err != nil {
			return 0, err
		}
		x.logger.Debug("re-indexed files", "root", root, "files", len(o.Paths), "seq", rep.LastSeq)
		seq = max(seq, rep.LastSeq)
	}
	return seq, nil
}

// reextractDependents extracts again the Go files of the other roots
// with a go.mod or go.work that points at a Go module of the root just
// added at folder (a require, a replace, a use): their calls into it were
// stubs and now land on its nodes. It runs after the new root's run, which
// holds the index turn; a failure is logged and left for the next index of
// that root. Report.Dependents names the roots re-extracted.
func (x *Indexer) reextractDependents(ctx context.Context, rep *Report, folder string, others map[string]string) {
	mods := map[string]bool{}
	for _, d := range extract.GoModuleFolders(folder) {
		if mod := goModulePath(filepath.Join(d, "go.mod")); mod != "" {
			mods[mod] = true
		}
	}
	if len(mods) == 0 {
		return
	}
	for _, dir := range slices.Sorted(maps.Keys(others)) {
		if !usesModule(dir, mods) {
			continue
		}
		sub, err := x.indexLocked(ctx, dir, RunOptions{forceGo: true})
		if err != nil {
			x.logger.Warn("the Go files that use the new root were not extracted again; index their root again", "root", dir, "err", err)
			continue
		}
		rep.Dependents = append(rep.Dependents, Dependent{Root: dir, Name: others[dir], FilesChanged: sub.FilesChanged, LastSeq: sub.LastSeq})
		rep.LastSeq = max(rep.LastSeq, sub.LastSeq)
	}
}

// usesModule reports whether a go.mod or go.work of the root at dir (its
// top folder's, or a nested module's) mentions one of the module paths
// mods (mentionsModule).
func usesModule(dir string, mods map[string]bool) bool {
	for _, d := range extract.GoModuleFolders(dir) {
		if mentionsModule(d, mods) {
			return true
		}
	}
	return mentionsModule(dir, mods) // a go.work with no go.mod beside it
}

// Dependent is a root whose Go files were extracted again because the
// run added a root holding a Go module they use.
type Dependent struct {
	Root         string `json:"root"`
	Name         string `json:"name"`
	FilesChanged int    `json:"files_changed"`
	LastSeq      uint64 `json:"last_seq,omitempty"`
}

// goModulePath returns the module path a go.mod declares, "" when the
// file is missing or declares none.
func goModulePath(gomod string) string {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	return modfile.ModulePath(data)
}

// mentionsModule reports whether the go.mod or go.work at the top of dir
// makes the source of a module of mods (module paths) part of its type check: a replace
// directive of it, a require of it (the Go pass reads a bare require of a
// module another root holds from that root's working tree, not the module
// cache), or in go.work a use of a folder whose go.mod declares one.
func mentionsModule(dir string, mods map[string]bool) bool {
	if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
		if f, err := modfile.Parse("go.mod", data, nil); err == nil {
			for _, r := range f.Replace {
				if mods[r.Old.Path] {
					return true
				}
			}
			for _, r := range f.Require {
				if mods[r.Mod.Path] {
					return true
				}
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "go.work")); err == nil {
		if f, err := modfile.ParseWork("go.work", data, nil); err == nil {
			for _, u := range f.Use {
				if mods[goModulePath(filepath.Join(dir, u.Path, "go.mod"))] {
					return true
				}
			}
		}
	}
	return false
}

// PathMapper maps the graph's paths to the folders they are read under:
// a path of the primary root under the folders the server approves, a
// path of a named root (name//rel) as rel under that root's folder.
type PathMapper struct {
	primary []string
	named   map[string]string
}

// NewPathMapper returns the PathMapper of the graph of v, the primary
// root's paths read under primary. Call it inside the view v; the mapper
// may be used outside.
func NewPathMapper(v state.View, primary []string) PathMapper {
	m := PathMapper{primary: primary, named: map[string]string{}}
	for _, r := range v.Graph.Roots() {
		if r.Name != "" {
			m.named[r.Name] = r.Root
		}
	}
	return m
}

// Map returns the folders p is read under and its path inside them;
// no folder when p names a root the graph does not hold.
func (m PathMapper) Map(p string) (folders []string, rel string) {
	name, rel := graph.SplitRoot(p)
	if name == "" {
		return m.primary, p
	}
	if folder, ok := m.named[name]; ok {
		return []string{folder}, rel
	}
	return nil, rel
}

// InRoot rewrites a batch extracted from the folder of the root name to
// that root's graph paths and uids, in place (as a run of that root
// appends them): what a worktree overlay applies over the root.
func InRoot(name string, batch []graph.FileExtracted, removed []string) { inRoot(name, batch, removed) }

// CacheDir is the extractor cache folder, under the state folder
// stateDir, of the folder root.
func CacheDir(stateDir, root string) string { return cacheDir(stateDir, root) }
