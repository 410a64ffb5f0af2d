package manifest

import (
	"encoding/xml"
	"regexp"
	"strings"
)

// Maven and Gradle manifests: pom.xml, build.gradle, build.gradle.kts.
// Their dependencies become maven:package:<group>:<artifact> nodes.

// pomDeps reads a pom.xml's dependencies (dependencies and
// dependencyManagement, plugins too) with ${property} versions expanded
// from its properties, and the project's own coordinates. A malformed
// document yields what was read before the error.
func pomDeps(src string) (deps []dependency, self map[string]string) {
	d := xml.NewDecoder(strings.NewReader(src))
	d.Strict = false
	var stack []string
	props := map[string]string{}
	self = map[string]string{}
	var cur *dependency
	var curScope, group, artifact string
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			text.Reset()
			if t.Name.Local == "dependency" || t.Name.Local == "plugin" {
				line := 1 + strings.Count(src[:min(int(d.InputOffset()), len(src))], "\n")
				cur = &dependency{Ecosystem: "maven", Line: line}
				curScope, group, artifact = "", "", ""
				if t.Name.Local == "plugin" {
					curScope = "plugin"
				} else if len(stack) >= 3 && stack[len(stack)-3] == "dependencyManagement" {
					curScope = "managed"
				}
			}
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			if len(stack) == 0 {
				continue
			}
			name := stack[len(stack)-1]
			v := strings.TrimSpace(text.String())
			parent := ""
			if len(stack) >= 2 {
				parent = stack[len(stack)-2]
			}
			switch {
			case cur != nil && (name == "dependency" || name == "plugin"):
				if cur.Scope == "" {
					cur.Scope = curScope
				}
				if group == "" && cur.Scope == "plugin" {
					group = "org.apache.maven.plugins"
				}
				if group != "" && artifact != "" {
					cur.Name = group + ":" + artifact
					deps = append(deps, *cur)
				}
				cur = nil
			case cur != nil && (parent == "dependency" || parent == "plugin"):
				switch name {
				case "groupId":
					group = v
				case "artifactId":
					artifact = v
				case "version":
					cur.Version = v
				case "scope":
					cur.Scope = v
				}
			case parent == "properties" && len(stack) == 3:
				props[name] = v
			case parent == "project" && (name == "groupId" || name == "artifactId" || name == "version"):
				self[name] = v
			}
			stack = stack[:len(stack)-1]
			text.Reset()
		}
	}
	for i := range deps {
		deps[i].Version = expandProps(deps[i].Version, props, self)
		deps[i].Name = expandProps(deps[i].Name, props, self)
	}
	return deps, self
}

var propRef = regexp.MustCompile(`\$\{([^}]+)\}`)

func expandProps(v string, props, self map[string]string) string {
	return propRef.ReplaceAllStringFunc(v, func(m string) string {
		k := m[2 : len(m)-1]
		if p, ok := props[k]; ok {
			return p
		}
		if p, ok := self[strings.TrimPrefix(k, "project.")]; ok {
			return p
		}
		return m
	})
}

// gradleConfigs are the dependency configurations read from a Gradle
// build script.
const gradleConfigs = `implementation|api|compileOnly|runtimeOnly|testImplementation|testRuntimeOnly|testCompileOnly|annotationProcessor|kapt|ksp|compile|testCompile|runtime|classpath|compileOnlyApi|developmentOnly|testFixturesImplementation|testFixturesApi`

var (
	gradleString = regexp.MustCompile(`^\s*(` + gradleConfigs + `)\s*\(?\s*(?:platform\s*\(\s*)?["']([^"':\s]+):([^"':\s]+)(?::([^"'\s]+))?["']`)
	gradleMap    = regexp.MustCompile(`^\s*(` + gradleConfigs + `)\s*\(?\s*group\s*[:=]\s*["']([^"']+)["']\s*,\s*name\s*[:=]\s*["']([^"']+)["'](?:\s*,\s*version\s*[:=]\s*["']([^"']+)["'])?`)
)

// gradleDeps reads the "group:artifact:version" and group:/name:/version:
// dependency declarations of a Groovy or Kotlin build script, one a line;
// the configuration is the scope.
func gradleDeps(src string) []dependency {
	var deps []dependency
	for i, line := range strings.Split(src, "\n") {
		m := gradleString.FindStringSubmatch(line)
		if m == nil {
			m = gradleMap.FindStringSubmatch(line)
		}
		if m == nil {
			continue
		}
		deps = append(deps, dependency{Ecosystem: "maven", Name: m[2] + ":" + m[3], Version: m[4], Scope: m[1], Line: i + 1})
	}
	return deps
}
