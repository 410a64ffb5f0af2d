package graph

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateUID(t *testing.T) {
	good := []string{
		"code:file:src/core/server.py",
		"code:function:src/core/server.py::cos_metric_record",
		"code:function:x.go::Char.splice",
		"code:class:cognition.py::SupervisorState",
		"code:module:core.thinking_os.server",
		"doc:file:docs/engineering/mcp-schema-traps.md",
		"doc:heading:docs/a.md#uid-scheme:2",
		"doc:heading:docs/日本.md#見出し:1",
		"folder:src/core/thinking_os/tools",
		"folder:.",
		"config:json:src/web/ui/tsconfig.json#/compilerOptions/paths/@app/*",
		"config:toml:pyproject.toml#/project/scripts/cos",
		"npm:package:react", "pypi:package:click", "crates:package:tokio", "go:package:golang.org/x/sync",
		"mcp:server:coding-os", "code:external:net/http.ListenAndServe",
	}
	for _, uid := range good {
		if err := ValidateUID(uid); err != nil {
			t.Errorf("ValidateUID(%q) = %v", uid, err)
		}
	}
	bad := map[string]string{
		"":                        "empty",
		"code:file:../etc/passwd": `"../"`,
		"code:file:a/..":          `"../"`,
		"doc:file:docs/`x`.md":    "backtick",
		"code:file:my file.go":    "whitespace",
		"code:file:a\tb":          "whitespace",
		"code:file:a\x00b":        "control",
		"code:file:":              "nothing after",
		"file:a.go":               "unknown prefix",
		"code:file:\xff":          "UTF-8",
		"code:file:" + strings.Repeat("a", MaxUIDLen): "longer than",
	}
	for uid, reason := range bad {
		err := ValidateUID(uid)
		var ue *UIDError
		if !errors.Is(err, ErrMalformedUID) || !errors.As(err, &ue) || !strings.Contains(ue.Reason, reason) {
			t.Errorf("ValidateUID(%q) = %v, want a reason containing %q", uid, err, reason)
		}
	}
}

func TestKindOfUID(t *testing.T) {
	for uid, want := range map[string]string{
		"code:file:a.go": KindFile, "code:function:a.go::F": KindFunction, "code:class:a.py::C": KindClass,
		"doc:file:a.md": KindDocFile, "doc:heading:a.md#x:1": KindHeading, "folder:a": KindFolder,
		"config:yaml:a.yml#/k": KindConfig, "npm:package:x": KindDependency, "mcp:server:x": KindMCPServer,
	} {
		if got, ok := KindOfUID(uid); !ok || got != want {
			t.Errorf("KindOfUID(%q) = %q, %v; want %q", uid, got, ok, want)
		}
	}
	if _, ok := KindOfUID("nope:x"); ok {
		t.Error("KindOfUID accepted an unknown prefix")
	}
}

func TestFileAndFolderUID(t *testing.T) {
	cases := map[string]string{"README.md": "doc:file:README.md", "docs/A.MARKDOWN": "doc:file:docs/A.MARKDOWN", "main.go": "code:file:main.go"}
	for path, want := range cases {
		if got := FileUID(path); got != want {
			t.Errorf("FileUID(%q) = %q, want %q", path, got, want)
		}
	}
	if FolderUID("") != "folder:." || FolderUID("a/b") != "folder:a/b" {
		t.Errorf("FolderUID: %q %q", FolderUID(""), FolderUID("a/b"))
	}
	k := Edge{Source: "a", Target: "b", Type: EdgeCalls, Extractor: "go", Line: 3}.Key()
	if k != (EdgeKey{"a", "b", EdgeCalls, "go"}) {
		t.Errorf("Edge.Key = %+v", k)
	}
}
