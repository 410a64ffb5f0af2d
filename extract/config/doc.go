// Package config reads JSON, TOML and YAML files into one config node per
// key, down to lang.Env.MaxDepth levels, each contained by its parent key
// or by the file. Package manifest reads the keys of JSON and TOML
// manifests with Read.
package config
