package config

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/cos-dev/cos/graph"
)

// maxConfigKeys bounds the key nodes of one config file.
const maxConfigKeys = 5000

// maxValueLen bounds a scalar value recorded in a key node's metadata.
const maxValueLen = 120

// cfgKey is one key of a parsed config document.
type cfgKey struct {
	Key   string
	Line  int
	Type  string // object, array, string, number, bool, null
	Value string // scalars only, truncated
	Kids  []cfgKey
}

// Read parses a JSON, TOML or YAML file (src made valid UTF-8 by
// lang.SourceText) and emits one config node
// per key down to Options.MaxConfigDepth: config:json:<path>#<json-pointer>,
// config:yaml:<path>#<json-pointer>, config:toml:<path>#<dotted-key>. The
// file contains its top-level keys, a key contains its children. Arrays are
// not descended into.
func Read(fr *lang.Result, data []byte, e *lang.Env) {
	fileUID := lang.FileNode(fr, map[string]any{"language": configFormat(fr.Path)})
	keys, err := parseConfig(fr.Path, data)
	if err != nil {
		fr.ParseError(err.Error())
	}
	format := configFormat(fr.Path)
	budget := maxConfigKeys
	var rec func(parent string, prefix []string, keys []cfgKey, depth int)
	rec = func(parent string, prefix []string, keys []cfgKey, depth int) {
		for _, k := range keys {
			if budget == 0 {
				return
			}
			budget--
			p := append(append([]string(nil), prefix...), k.Key)
			uid := configUID(format, fr.Path, p)
			meta := map[string]any{"type": k.Type}
			if k.Value != "" {
				meta["value"] = k.Value
			}
			fr.AddNode(graph.Node{UID: uid, Kind: graph.KindConfig, Label: lang.CleanString(k.Key), Line: k.Line, Metadata: meta})
			fr.AddEdge(parent, uid, graph.EdgeContains, k.Line)
			if depth < e.MaxDepth {
				rec(uid, p, k.Kids, depth+1)
			}
		}
	}
	rec(fileUID, nil, keys, 1)
}

func configFormat(p string) string {
	switch l := strings.ToLower(path.Ext(p)); l {
	case ".toml":
		return "toml"
	case ".yaml", ".yml":
		return "yaml"
	}
	return "json"
}

// configUID builds the uid of a key path: a JSON pointer (RFC 6901) for JSON
// and YAML, a dotted key (quoted where not bare) for TOML.
func configUID(format, p string, keys []string) string {
	var b strings.Builder
	b.WriteString("config:" + format + ":" + lang.UIDPart(p) + "#")
	if format == "toml" {
		for i, k := range keys {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(lang.UIDPart(tomlKey(k)))
		}
	} else {
		for _, k := range keys {
			b.WriteByte('/')
			k = strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			b.WriteString(lang.UIDPart(k))
		}
	}
	return lang.ClampUID(b.String())
}

// tomlKey quotes a key that is not a TOML bare key.
func tomlKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		bare := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
		if !bare {
			return strconv.Quote(k)
		}
	}
	return k
}

// parseConfig parses data by the file's extension into keys, sorted by key
// for JSON and TOML (no order is kept by their decoders), in document order
// with lines for YAML.
func parseConfig(p string, data []byte) ([]cfgKey, error) {
	src := lang.ValidUTF8(data)
	switch configFormat(p) {
	case "toml":
		var v map[string]any
		if _, err := toml.Decode(src, &v); err != nil {
			return nil, fmt.Errorf("toml: %v", err)
		}
		return genericKeys(v, 0), nil
	case "yaml":
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			return nil, fmt.Errorf("yaml: %v", err)
		}
		if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
			budget := maxConfigKeys
			return yamlKeys(doc.Content[0], 0, &budget), nil
		}
		return nil, nil
	}
	var v any
	if err := json.Unmarshal([]byte(src), &v); err != nil {
		return nil, fmt.Errorf("json: %v", err)
	}
	m, _ := v.(map[string]any)
	return genericKeys(m, 0), nil
}

// maxConfigNesting stops the key tree of pathological documents; depth is
// bounded again, by Options.MaxConfigDepth, when nodes are emitted.
const maxConfigNesting = 64

func genericKeys(m map[string]any, depth int) []cfgKey {
	if len(m) == 0 || depth > maxConfigNesting {
		return nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]cfgKey, 0, len(m))
	for _, k := range names {
		ck := cfgKey{Key: k}
		switch v := m[k].(type) {
		case map[string]any:
			ck.Type = "object"
			ck.Kids = genericKeys(v, depth+1)
		case []map[string]any:
			ck.Type = "array"
		case []any:
			ck.Type = "array"
		case string:
			ck.Type, ck.Value = "string", Shorten(v)
		case bool:
			ck.Type, ck.Value = "bool", strconv.FormatBool(v)
		case nil:
			ck.Type = "null"
		default:
			ck.Type, ck.Value = "number", Shorten(fmt.Sprint(v))
		}
		out = append(out, ck)
	}
	return out
}

// yamlKeys walks a YAML mapping; budget bounds the keys visited so that
// aliases (billion laughs) cannot blow up.
func yamlKeys(n *yaml.Node, depth int, budget *int) []cfgKey {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode || depth > maxConfigNesting {
		return nil
	}
	var out []cfgKey
	for i := 0; i+1 < len(n.Content) && *budget > 0; i += 2 {
		*budget--
		k, v := n.Content[i], n.Content[i+1]
		ck := cfgKey{Key: k.Value, Line: k.Line}
		for v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		switch v.Kind {
		case yaml.MappingNode:
			ck.Type = "object"
			ck.Kids = yamlKeys(v, depth+1, budget)
		case yaml.SequenceNode:
			ck.Type = "array"
		default:
			ck.Type, ck.Value = yamlScalarType(v.Tag), Shorten(v.Value)
		}
		out = append(out, ck)
	}
	return out
}

func yamlScalarType(tag string) string {
	switch tag {
	case "!!int", "!!float":
		return "number"
	case "!!bool":
		return "bool"
	case "!!null":
		return "null"
	}
	return "string"
}

// Shorten cuts s to maxValueLen bytes on a rune boundary and cleans it.
func Shorten(s string) string {
	s = lang.CleanString(s)
	if len(s) <= maxValueLen {
		return s
	}
	cut := maxValueLen
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
