package jsts

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

func TestJSONC(t *testing.T) {
	in := "{\n // a comment with \"quotes\"\n \"a\": \"x // not a comment\", /* block */ \"b\": [1, 2,],\n}\n"
	var got map[string]any
	if err := json.Unmarshal(jsonc([]byte(in)), &got); err != nil {
		t.Fatalf("jsonc(%q) = %q: %v", in, jsonc([]byte(in)), err)
	}
	if got["a"] != "x // not a comment" || len(got["b"].([]any)) != 2 {
		t.Fatalf("jsonc read %v", got)
	}
}

func TestPackage(t *testing.T) {
	name, pkg, ok := Package("lib//packages/a/package.json", []byte(`{"name": "@o/a", "main": "dist/index.js", "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/index.mjs"}, "./util/*": "./src/util/*.ts"}}`))
	if !ok || name != "@o/a" || pkg.Dir != "lib//packages/a" || !slices.Equal(pkg.Entries, []string{"dist/index.js"}) {
		t.Fatalf("Package = %q %+v %v", name, pkg, ok)
	}
	want := map[string][]string{".": {"./dist/index.mjs", "./dist/index.d.ts"}, "./util/*": {"./src/util/*.ts"}}
	if !maps.EqualFunc(pkg.Exports, want, slices.Equal) {
		t.Fatalf("exports = %v, want %v", pkg.Exports, want)
	}
	if _, _, ok := Package("package.json", []byte(`{"private": true}`)); ok {
		t.Fatal("a package.json without a name is no package")
	}
	if _, pkg, _ := Package("//package.json", []byte(`{"name": "top"}`)); pkg.Dir != "//" {
		t.Fatalf("the primary root's top package folder = %q, want //", pkg.Dir)
	}
}
