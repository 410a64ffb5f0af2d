package manifest

import (
	"encoding/xml"
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// .NET project files (*.csproj): their PackageReference items become
// nuget:package:<Name> nodes, their ProjectReference items requires edges
// to the referenced in-tree project file.

// isProjectFile reports whether a lower-cased base name is a .NET project
// file.
func isProjectFile(base string) bool { return strings.HasSuffix(base, ".csproj") }

// csprojDeps reads a project file's PackageReference items (Include or
// Update, the version from a Version attribute or element) and its
// ProjectReference paths as written. A malformed document yields what was
// read before the error.
func csprojDeps(src string) (deps []dependency, projects []dependency) {
	d := xml.NewDecoder(strings.NewReader(src))
	d.Strict = false
	var cur *dependency
	var inVersion bool
	var text strings.Builder
	line := func() int { return 1 + strings.Count(src[:min(int(d.InputOffset()), len(src))], "\n") }
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "PackageReference", "PackageVersion":
				dep := dependency{Ecosystem: "nuget", Line: line()}
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "Include", "Update":
						if dep.Name == "" {
							dep.Name = strings.TrimSpace(a.Value)
						}
					case "Version", "VersionOverride":
						dep.Version = strings.TrimSpace(a.Value)
					case "PrivateAssets":
						if strings.EqualFold(a.Value, "all") {
							dep.Scope = "private"
						}
					}
				}
				cur = &dep
			case "ProjectReference":
				for _, a := range t.Attr {
					if a.Name.Local == "Include" {
						projects = append(projects, dependency{Name: strings.TrimSpace(a.Value), Line: line()})
					}
				}
			case "Version":
				inVersion = cur != nil
				text.Reset()
			}
		case xml.CharData:
			if inVersion {
				text.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "Version":
				if inVersion && cur != nil {
					cur.Version = strings.TrimSpace(text.String())
				}
				inVersion = false
			case "PackageReference", "PackageVersion":
				if cur != nil && cur.Name != "" {
					deps = append(deps, *cur)
				}
				cur = nil
			}
		}
	}
	return deps, projects
}

// csprojProjects adds a requires edge (metadata scope "project") from the
// project file to each in-tree project file it references.
func csprojProjects(fr *lang.Result, projects []dependency, e *lang.Env) {
	dir := path.Dir(fr.Path)
	for _, p := range projects {
		target := path.Join(dir, strings.ReplaceAll(p.Name, `\`, "/"))
		if e == nil || !e.Files[target] || target == fr.Path {
			continue
		}
		fr.Edges = append(fr.Edges, graph.Edge{Source: lang.FileUID(fr.Path), Target: lang.FileUID(target), Type: graph.EdgeRequires, Extractor: fr.Extractor, Line: p.Line, Metadata: map[string]any{"scope": "project"}})
	}
}
