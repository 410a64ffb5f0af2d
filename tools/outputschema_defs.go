package tools

import (
	"encoding/json"
	"strconv"
)

// hoistRepeats says once, in root's $defs, each object schema that occurs
// more than once under root (an evidence entry in every slot of a bundle,
// a rename site in every list, a node view as source and target), each
// occurrence becoming {"$ref": "#/$defs/<n>"}: a tools/list carries every
// tool's output schema, and a repeated type would be said in full each
// time. The repeat that saves most goes first, and the search starts
// over, so repeats within it (a task reference inside every entry) are
// counted in $defs once; a schema is hoisted only when that makes root
// shorter.
func hoistRepeats(root map[string]any) {
	defs := map[string]any{}
	for {
		counts := map[string]int{}
		walkSchemas(root, func(m map[string]any) {
			if m["properties"] != nil {
				counts[canon(m)]++
			}
		})
		best, gain := "", 0
		for k, n := range counts {
			ref := len(`{"$ref":"#/$defs/` + strconv.Itoa(len(defs)) + `"}`)
			g := (n-1)*len(k) - n*ref - len(`"":,`) - 2
			if n > 1 && g > 0 && (g > gain || g == gain && k < best) { // ties by key: the same answer every time
				best, gain = k, g
			}
		}
		if best == "" {
			break
		}
		name := strconv.Itoa(len(defs))
		var def map[string]any
		_ = json.Unmarshal([]byte(best), &def)
		defs[name] = def
		replaceSchemas(root, best, map[string]any{"$ref": "#/$defs/" + name})
	}
	if len(defs) > 0 {
		root["$defs"] = defs
	}
}

// canon is m as JSON, keys sorted: equal schemas are equal strings.
func canon(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// schemaChildren are the keywords whose values are schemas, or maps or
// lists of them, in the schemas FieldSchema and typeSchema build.
var schemaChildren = []string{"properties", "items", "additionalProperties", "$defs"}

// walkSchemas calls f on every schema below m (m excluded).
func walkSchemas(m map[string]any, f func(map[string]any)) {
	for _, kw := range schemaChildren {
		switch c := m[kw].(type) {
		case map[string]any:
			if kw == "properties" || kw == "$defs" {
				for _, p := range c {
					if pm, ok := p.(map[string]any); ok {
						f(pm)
						walkSchemas(pm, f)
					}
				}
				continue
			}
			f(c)
			walkSchemas(c, f)
		}
	}
}

// replaceSchemas replaces every schema below m whose canon is key by ref.
func replaceSchemas(m map[string]any, key string, ref map[string]any) {
	for _, kw := range schemaChildren {
		c, ok := m[kw].(map[string]any)
		if !ok {
			continue
		}
		if kw == "properties" || kw == "$defs" {
			for name, p := range c {
				if pm, ok := p.(map[string]any); ok {
					if pm["properties"] != nil && canon(pm) == key {
						c[name] = ref
						continue
					}
					replaceSchemas(pm, key, ref)
				}
			}
			continue
		}
		if c["properties"] != nil && canon(c) == key {
			m[kw] = ref
			continue
		}
		replaceSchemas(c, key, ref)
	}
}
