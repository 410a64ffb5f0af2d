package jsts

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// maxExtends bounds a chain of tsconfig.json extends.
const maxExtends = 8

// TSConfigPaths reads the tsconfig.json at the absolute file name and
// the local tsconfigs it extends ("./base.json", "../tsconfig.base.json";
// a package name is not followed), and returns its compilerOptions.paths
// with every target made absolute: against baseUrl (of the config that
// sets it, the nearest one winning) or, without one, the folder of the
// config declaring paths. read returns a file's content. nil when no
// config in the chain maps paths.
func TSConfigPaths(name string, read func(abs string) ([]byte, error)) map[string][]string {
	var (
		paths    map[string][]string
		pathsDir string
		baseURL  string
		haveBase bool
	)
	for range maxExtends {
		data, err := read(name)
		if err != nil {
			break
		}
		var c struct {
			Extends         json.RawMessage `json:"extends"`
			CompilerOptions struct {
				BaseURL *string             `json:"baseUrl"`
				Paths   map[string][]string `json:"paths"`
			} `json:"compilerOptions"`
		}
		if json.Unmarshal(jsonc(data), &c) != nil {
			break
		}
		dir := filepath.Dir(name)
		if paths == nil && c.CompilerOptions.Paths != nil {
			paths, pathsDir = c.CompilerOptions.Paths, dir
		}
		if !haveBase && c.CompilerOptions.BaseURL != nil {
			baseURL, haveBase = filepath.Join(dir, filepath.FromSlash(*c.CompilerOptions.BaseURL)), true
		}
		var ext string
		if json.Unmarshal(c.Extends, &ext) != nil || !strings.HasPrefix(ext, ".") {
			break
		}
		name = filepath.Join(dir, filepath.FromSlash(ext))
		if !strings.HasSuffix(name, ".json") {
			name += ".json"
		}
	}
	if len(paths) == 0 {
		return nil
	}
	base := pathsDir
	if haveBase {
		base = baseURL
	}
	out := make(map[string][]string, len(paths))
	for pat, targets := range paths {
		for _, t := range targets {
			out[pat] = append(out[pat], filepath.Join(base, filepath.FromSlash(t)))
		}
	}
	return out
}

// jsonc turns JSON with comments and trailing commas (what tsconfig.json
// allows) into JSON: comments become spaces, a comma before '}' or ']'
// is dropped. Strings are left as they are.
func jsonc(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			i += 2
			for i+1 < len(data) && (data[i] != '*' || data[i+1] != '/') {
				i++
			}
			i++
			out = append(out, ' ')
		case c == '}' || c == ']':
			j := len(out) - 1
			for j >= 0 && (out[j] == ' ' || out[j] == '\n' || out[j] == '\t' || out[j] == '\r') {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out[j] = ' '
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}
