// Package manifest reads dependency manifests (go.mod, package.json,
// pyproject.toml, requirements*.txt, Cargo.toml, pom.xml, build.gradle,
// build.gradle.kts, build.sbt, composer.json, Gemfile, *.gemspec, *.csproj,
// Package.swift) into <ecosystem>:package:<name> nodes the file requires,
// and .mcp.json into mcp:server:<name> nodes it defines (Maven, Gradle and
// sbt dependencies are maven:package:<group>:<artifact>, an sbt %% artifact
// as written, without the Scala version suffix); JSON and TOML manifests
// also get their config key nodes (config.Read). Gradle's settings.gradle
// and settings.gradle.kts get their file node (language gradle) only.
package manifest
