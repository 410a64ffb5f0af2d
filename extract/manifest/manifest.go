package manifest

import (
	"encoding/json"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/cos-dev/cos/extract/config"
	"github.com/cos-dev/cos/extract/lang"

	"github.com/BurntSushi/toml"

	"github.com/cos-dev/cos/graph"
)

// IsManifest reports whether a file base name is a dependency manifest or an
// MCP server registry.
func IsManifest(base string) bool {
	l := strings.ToLower(base)
	switch l {
	case "go.mod", "package.json", "pyproject.toml", "cargo.toml", ".mcp.json", "pom.xml", "build.gradle", "build.gradle.kts", "composer.json", "gemfile", "build.sbt":
		return true
	}
	if strings.HasSuffix(l, ".gemspec") || isProjectFile(l) || isSwiftPM(l) {
		return true
	}
	if l == "settings.gradle" || l == "settings.gradle.kts" {
		return true // a Gradle build's module list: no dependencies
	}
	return strings.HasPrefix(l, "requirements") && strings.HasSuffix(l, ".txt")
}

// dependency is one package a manifest requires.
type dependency struct {
	Ecosystem string // go, npm, pypi, crates, maven, composer, gem, nuget, swiftpm
	Name      string
	Version   string
	Scope     string // "", dev, optional, peer, build, indirect, …
	Line      int
}

// extract reads go.mod, package.json, pyproject.toml,
// requirements*.txt, Cargo.toml, build.sbt, composer.json, Gemfile, *.gemspec
// and Package.swift
// into <ecosystem>:package:<name> nodes
// with requires edges from the manifest file, and .mcp.json into
// mcp:server:<name> nodes the file defines. JSON and TOML manifests also
// get their config key nodes.
func extract(fr *lang.Result, data []byte, e *lang.Env) {
	base := strings.ToLower(path.Base(fr.Path))
	src := lang.ValidUTF8(data)
	var deps []dependency
	switch base {
	case "go.mod":
		lang.FileNode(fr, map[string]any{"language": "go.mod"})
		m := lang.ParseGoMod(src)
		for _, r := range m.Requires {
			scope := ""
			if r.Indirect {
				scope = "indirect"
			}
			deps = append(deps, dependency{Ecosystem: "go", Name: r.Path, Version: r.Version, Scope: scope, Line: r.Line})
		}
	case "package.json":
		config.Read(fr, data, e)
		deps = packageJSONDeps(src, fr)
	case "pyproject.toml":
		config.Read(fr, data, e)
		deps = pyprojectDeps(src)
	case "cargo.toml":
		config.Read(fr, data, e)
		deps = cargoDeps(src)
		cargoCrate(fr, src, e)
	case "pom.xml":
		var self map[string]string
		deps, self = pomDeps(src)
		meta := map[string]any{"language": "maven"}
		if self["artifactId"] != "" {
			meta["artifact"] = self["groupId"] + ":" + self["artifactId"]
		}
		lang.FileNode(fr, meta)
	case "build.gradle", "build.gradle.kts":
		lang.FileNode(fr, map[string]any{"language": "gradle"})
		deps = gradleDeps(src)
	case "settings.gradle", "settings.gradle.kts":
		lang.FileNode(fr, map[string]any{"language": "gradle"})
	case "build.sbt":
		lang.FileNode(fr, map[string]any{"language": "sbt"})
		deps = sbtDeps(src)
	case "composer.json":
		config.Read(fr, data, e)
		deps = composerDeps(src)
	case "gemfile":
		lang.FileNode(fr, map[string]any{"language": "gemfile"})
		deps = gemfileDeps(src)
	case ".mcp.json":
		config.Read(fr, data, e)
		mcpServers(fr, src)
		return
	default:
		if isProjectFile(base) {
			lang.FileNode(fr, map[string]any{"language": "msbuild"})
			var projects []dependency
			deps, projects = csprojDeps(src)
			csprojProjects(fr, projects, e)
			break
		}
		if isSwiftPM(base) {
			lang.FileNode(fr, map[string]any{"language": "swiftpm"})
			deps = swiftPMDeps(src)
			swiftPMPackage(fr, src)
			break
		}
		if strings.HasSuffix(base, ".gemspec") {
			lang.FileNode(fr, map[string]any{"language": "gemspec"})
			deps = gemspecDeps(src)
			break
		}
		// requirements*.txt
		lang.FileNode(fr, map[string]any{"language": "requirements"})
		deps = requirementsDeps(src)
	}
	from := lang.FileUID(fr.Path)
	for _, d := range deps {
		name := d.Name
		if d.Ecosystem == "pypi" {
			name = pep503(name)
		}
		if name == "" {
			continue
		}
		n := graph.Node{UID: lang.ClampUID(d.Ecosystem + ":package:" + lang.UIDPart(name)), Kind: graph.KindDependency, Label: lang.CleanString(name), Metadata: map[string]any{"ecosystem": d.Ecosystem}}
		if d.Ecosystem == "go" {
			n = lang.GoPackageNode(name)
		}
		uid := n.UID
		fr.AddNode(n)
		meta := map[string]any{}
		if d.Version != "" {
			meta["version"] = config.Shorten(d.Version)
		}
		if d.Scope != "" {
			meta["scope"] = d.Scope
		}
		if len(meta) == 0 {
			meta = nil
		}
		fr.Edges = append(fr.Edges, graph.Edge{Source: from, Target: uid, Type: graph.EdgeRequires, Extractor: fr.Extractor, Line: d.Line, Metadata: meta})
	}
}

func packageJSONDeps(src string, fr *lang.Result) []dependency {
	var pj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(src), &pj); err != nil {
		return nil // the config pass recorded the parse error
	}
	var deps []dependency
	for _, sec := range []struct{ key, scope string }{{"dependencies", ""}, {"devDependencies", "dev"}, {"peerDependencies", "peer"}, {"optionalDependencies", "optional"}} {
		var m map[string]any
		if raw, ok := pj[sec.key]; !ok || json.Unmarshal(raw, &m) != nil {
			continue
		}
		for _, name := range sortedKeys(m) {
			v, _ := m[name].(string)
			deps = append(deps, dependency{Ecosystem: "npm", Name: name, Version: v, Scope: sec.scope})
		}
	}
	return deps
}

func pyprojectDeps(src string) []dependency {
	var pp struct {
		Project struct {
			Dependencies         []string            `toml:"dependencies"`
			OptionalDependencies map[string][]string `toml:"optional-dependencies"`
		} `toml:"project"`
		Tool struct {
			Poetry struct {
				Dependencies    map[string]any `toml:"dependencies"`
				DevDependencies map[string]any `toml:"dev-dependencies"`
			} `toml:"poetry"`
		} `toml:"tool"`
	}
	if _, err := toml.Decode(src, &pp); err != nil {
		return nil
	}
	var deps []dependency
	for _, s := range pp.Project.Dependencies {
		if n, v := pep508(s); n != "" {
			deps = append(deps, dependency{Ecosystem: "pypi", Name: n, Version: v})
		}
	}
	for _, group := range sortedKeys(pp.Project.OptionalDependencies) {
		for _, s := range pp.Project.OptionalDependencies[group] {
			if n, v := pep508(s); n != "" {
				deps = append(deps, dependency{Ecosystem: "pypi", Name: n, Version: v, Scope: "optional"})
			}
		}
	}
	for _, sec := range []struct {
		m     map[string]any
		scope string
	}{{pp.Tool.Poetry.Dependencies, ""}, {pp.Tool.Poetry.DevDependencies, "dev"}} {
		for _, n := range sortedKeys(sec.m) {
			if strings.EqualFold(n, "python") {
				continue
			}
			v, _ := sec.m[n].(string)
			deps = append(deps, dependency{Ecosystem: "pypi", Name: n, Version: v, Scope: sec.scope})
		}
	}
	return deps
}

func cargoDeps(src string) []dependency {
	var c struct {
		Dependencies      map[string]any `toml:"dependencies"`
		DevDependencies   map[string]any `toml:"dev-dependencies"`
		BuildDependencies map[string]any `toml:"build-dependencies"`
		Workspace         struct {
			Dependencies map[string]any `toml:"dependencies"`
		} `toml:"workspace"`
	}
	if _, err := toml.Decode(src, &c); err != nil {
		return nil
	}
	var deps []dependency
	for _, sec := range []struct {
		m     map[string]any
		scope string
	}{{c.Dependencies, ""}, {c.DevDependencies, "dev"}, {c.BuildDependencies, "build"}, {c.Workspace.Dependencies, "workspace"}} {
		for _, n := range sortedKeys(sec.m) {
			name, version := n, ""
			switch v := sec.m[n].(type) {
			case string:
				version = v
			case map[string]any:
				if p, ok := v["package"].(string); ok && p != "" {
					name = p
				}
				version, _ = v["version"].(string)
			}
			deps = append(deps, dependency{Ecosystem: "crates", Name: name, Version: version, Scope: sec.scope})
		}
	}
	return deps
}

// reqName matches the distribution name at the start of a PEP 508
// requirement.
var reqName = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$`)

// pep508 splits a requirement string into its name and version part.
func pep508(s string) (name, version string) {
	m := reqName.FindStringSubmatch(s)
	if m == nil {
		return "", ""
	}
	v := m[3]
	if i := strings.Index(v, ";"); i >= 0 {
		v = v[:i]
	}
	return m[1], strings.TrimSpace(v)
}

// pep503Run matches what PEP 503 folds into one "-".
var pep503Run = regexp.MustCompile(`[-_.]+`)

// pep503 normalises a Python distribution name.
func pep503(name string) string {
	return strings.Trim(pep503Run.ReplaceAllString(strings.ToLower(name), "-"), "-")
}

func requirementsDeps(src string) []dependency {
	var deps []dependency
	for i, line := range strings.Split(src, "\n") {
		if c := strings.Index(line, "#"); c >= 0 {
			line = line[:c]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "-") || strings.Contains(line, "://") {
			continue // options (-r, -e, --hash), URLs
		}
		if n, v := pep508(line); n != "" {
			deps = append(deps, dependency{Ecosystem: "pypi", Name: n, Version: v, Line: i + 1})
		}
	}
	return deps
}

// mcpServers adds one mcp:server: node per entry of .mcp.json's mcpServers.
func mcpServers(fr *lang.Result, src string) {
	var f struct {
		Servers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(src), &f); err != nil {
		return
	}
	from := lang.FileUID(fr.Path)
	for _, name := range sortedKeys(f.Servers) {
		s := f.Servers[name]
		meta := map[string]any{}
		for _, k := range []string{"command", "url", "type"} {
			if v, ok := s[k].(string); ok {
				meta[k] = config.Shorten(v)
			}
		}
		uid := lang.ClampUID("mcp:server:" + lang.UIDPart(name))
		fr.AddNode(graph.Node{UID: uid, Kind: graph.KindMCPServer, Label: lang.CleanString(name), Metadata: meta})
		fr.AddEdge(from, uid, graph.EdgeDefines, 0)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cargoCrate reads what a Cargo.toml says about its own crate: a
// [package] defines crates:package:<name> and declares the scope
// "cargo:<name>" (dashes as underscores, as Rust code names the crate),
// through which Rust files of other crates find it; a [workspace]'s
// members (folders, or globs of one "*" segment) each get a requires
// edge (metadata scope "workspace") to their Cargo.toml file.
func cargoCrate(fr *lang.Result, src string, e *lang.Env) {
	var c struct {
		Package struct {
			Name string `toml:"name"`
		} `toml:"package"`
		Workspace struct {
			Members []string `toml:"members"`
		} `toml:"workspace"`
	}
	if _, err := toml.Decode(src, &c); err != nil {
		return
	}
	from := lang.FileUID(fr.Path)
	if name := c.Package.Name; name != "" {
		uid := lang.ClampUID("crates:package:" + lang.UIDPart(name))
		fr.AddNode(graph.Node{UID: uid, Kind: graph.KindDependency, Label: lang.CleanString(name), Metadata: map[string]any{"ecosystem": "crates"}})
		fr.AddEdge(from, uid, graph.EdgeDefines, 0)
		fr.Decl = &lang.Decl{Scope: "cargo:" + strings.ReplaceAll(name, "-", "_")}
	}
	if e == nil || len(c.Workspace.Members) == 0 {
		return
	}
	dir := path.Dir(fr.Path)
	var members []string
	for _, m := range c.Workspace.Members {
		pat := path.Join(dir, m, "Cargo.toml")
		if !strings.Contains(m, "*") {
			if e.Files[pat] && pat != fr.Path {
				members = append(members, pat)
			}
			continue
		}
		for p := range e.Files {
			if ok, _ := path.Match(pat, p); ok && p != fr.Path {
				members = append(members, p)
			}
		}
	}
	sort.Strings(members)
	for _, m := range members {
		fr.Edges = append(fr.Edges, graph.Edge{Source: from, Target: lang.FileUID(m), Type: graph.EdgeRequires, Extractor: fr.Extractor, Metadata: map[string]any{"scope": "workspace"}})
	}
}
