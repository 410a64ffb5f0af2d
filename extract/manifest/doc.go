// Package manifest reads dependency manifests (go.mod, package.json,
// pyproject.toml, requirements*.txt, Cargo.toml, composer.json, Gemfile,
// *.gemspec) into
// <ecosystem>:package:<name> nodes the file requires, and .mcp.json into
// mcp:server:<name> nodes it defines; JSON and TOML manifests also get
// their config key nodes (config.Read).
package manifest
