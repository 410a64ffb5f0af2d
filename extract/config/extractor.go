package config

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads JSON, TOML and YAML files into config key nodes.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorConfig.
func (Extractor) Name() string { return lang.ExtractorConfig }

// Owns reports whether p names a .json, .toml, .yaml or .yml file (any
// case).
func (Extractor) Owns(p string) bool {
	l := strings.ToLower(path.Base(p))
	return strings.HasSuffix(l, ".json") || strings.HasSuffix(l, ".toml") || strings.HasSuffix(l, ".yaml") || strings.HasSuffix(l, ".yml")
}

// Declares returns false: config keys are not referenced by name.
func (Extractor) Declares() bool { return false }

// Provides returns nil.
func (Extractor) Provides(string) []string { return nil }

// Extract reads data as a config file (see Read).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) {
	Read(r, lang.SourceText(data), env)
}
