// Package manifest reads dependency manifests (go.mod, package.json,
// pyproject.toml, requirements*.txt, Cargo.toml, pom.xml, build.gradle,
// build.gradle.kts, composer.json, Gemfile, *.gemspec, Package.swift) into
// <ecosystem>:package:<name> nodes the file requires, and .mcp.json into
// mcp:server:<name> nodes it defines (Maven and Gradle dependencies are
// maven:package:<group>:<artifact>); JSON and TOML manifests also get
// their config key nodes (config.Read).
package manifest
