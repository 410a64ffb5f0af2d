package manifest

import (
	"regexp"
	"strings"
)

// sbt build definitions: build.sbt. Its library dependencies become
// maven:package:<group>:<artifact> nodes, as Maven's and Gradle's do.
//
// "group" %% "artifact" % "version" asks sbt to append the Scala binary
// version to the artifact (artifact_2.13, artifact_3), "%%%" also the
// Scala.js or Native platform: that suffix depends on the build's
// scalaVersion and crossScalaVersions, which are not read, so the node
// names the artifact as written (maven:package:org.typelevel:cats-core,
// never cats-core_2.13).

// sbtModule matches one module id: "group" % "artifact" % version, with
// %% or %%% after the group, an optional configuration after the version
// (% Test, % "test", % "provided"). A version held in a val is no string:
// the node has no version then.
var sbtModule = regexp.MustCompile(`"([^"\s]+)"\s*%{1,3}\s*"([^"\s]+)"\s*%\s*("[^"]*"|[A-Za-z_][\w.]*)(?:\s*%\s*("[^"]*"|[A-Z][\w.]*))?`)

// sbtDeps reads the module ids of a build.sbt, one or more a line; the
// configuration (test, provided, …) is the scope.
func sbtDeps(src string) []dependency {
	var deps []dependency
	for i, line := range strings.Split(src, "\n") {
		if c := strings.Index(line, "//"); c >= 0 && !strings.Contains(line[:c], `"`) {
			continue // a comment line
		}
		for _, m := range sbtModule.FindAllStringSubmatch(line, -1) {
			version := ""
			if strings.HasPrefix(m[3], `"`) {
				version = strings.Trim(m[3], `"`)
			}
			scope := strings.ToLower(strings.Trim(m[4], `"`))
			deps = append(deps, dependency{Ecosystem: "maven", Name: m[1] + ":" + m[2], Version: version, Scope: scope, Line: i + 1})
		}
	}
	return deps
}
