package php

import (
	"encoding/json"
	"path"
	"sort"
	"strings"
)

// Autoload reads the autoload and autoload-dev "psr-4" maps of every
// composer.json of a tree (outside vendor/ folders) into namespace prefix
// ("App\\", "" for the fallback) → the repo-relative folders it maps to,
// each ending in "/" ("" for the root), in the order composer lists them.
// read returns a file's content; a composer.json that cannot be read or
// decoded adds nothing.
func Autoload(files map[string]bool, read func(p string) ([]byte, error)) map[string][]string {
	var manifests []string
	for p := range files {
		if IsAutoloadManifest(p) {
			manifests = append(manifests, p)
		}
	}
	sort.Strings(manifests)
	out := map[string][]string{}
	for _, p := range manifests {
		data, err := read(p)
		if err != nil {
			continue
		}
		var doc struct {
			Autoload    map[string]json.RawMessage `json:"autoload"`
			AutoloadDev map[string]json.RawMessage `json:"autoload-dev"`
		}
		if json.Unmarshal(data, &doc) != nil {
			continue
		}
		base := path.Dir(p)
		for _, sec := range []map[string]json.RawMessage{doc.Autoload, doc.AutoloadDev} {
			var m map[string]json.RawMessage
			if json.Unmarshal(sec["psr-4"], &m) != nil {
				continue
			}
			for prefix, raw := range m {
				var dirs []string
				var one string
				if json.Unmarshal(raw, &one) == nil {
					dirs = []string{one}
				} else if json.Unmarshal(raw, &dirs) != nil {
					continue
				}
				prefix = strings.TrimLeft(prefix, `\`)
				for _, d := range dirs {
					out[prefix] = append(out[prefix], folder(base, d))
				}
			}
		}
	}
	return out
}

// folder joins a composer.json's folder and a psr-4 directory into a
// repo-relative folder ending in "/" ("" for the root).
func folder(base, d string) string {
	j := path.Clean(path.Join(base, d))
	if j == "." || strings.HasPrefix(j, "../") || j == ".." {
		return ""
	}
	return j + "/"
}

// IsAutoloadManifest reports whether Autoload reads the repo-relative
// path p: a composer.json outside vendor/ folders. When one appears,
// changes or goes, every PHP file is extracted again.
func IsAutoloadManifest(p string) bool {
	return path.Base(p) == "composer.json" && !inVendor(p)
}

func inVendor(p string) bool {
	return strings.HasPrefix(p, "vendor/") || strings.Contains(p, "/vendor/")
}

// classFile returns the in-tree file of the fully qualified class fqn
// (no leading backslash): through the longest psr-4 prefix of autoload
// that maps it to an existing file, else the namespace as a folder
// (A\B\C → A/B/C.php). want is the file looked for first, for a watch
// when none exists.
func classFile(fqn string, autoload map[string][]string, files map[string]bool) (p, want string, ok bool) {
	var prefixes []string
	for pre := range autoload {
		if strings.HasPrefix(fqn, pre) {
			prefixes = append(prefixes, pre)
		}
	}
	sort.Slice(prefixes, func(i, j int) bool { return len(prefixes[i]) > len(prefixes[j]) })
	for _, pre := range prefixes {
		rest := strings.ReplaceAll(strings.TrimPrefix(fqn, pre), `\`, "/") + ".php"
		for _, d := range autoload[pre] {
			c := d + rest
			if want == "" {
				want = c
			}
			if files[c] {
				return c, want, true
			}
		}
	}
	c := strings.ReplaceAll(fqn, `\`, "/") + ".php"
	if want == "" {
		want = c
	}
	return c, want, files[c]
}
