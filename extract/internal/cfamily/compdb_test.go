package cfamily

import (
	"slices"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	got := splitCommand(`cc  -I"a b" -I'c d' -Ie\ f -D"Q=\"x\"" -c x.c`)
	want := []string{"cc", "-Ia b", "-Ic d", "-Ie f", `-DQ="x"`, "-c", "x.c"}
	if !slices.Equal(got, want) {
		t.Errorf("splitCommand = %q, want %q", got, want)
	}
}

func TestIncludeFlags(t *testing.T) {
	got := includeFlags([]string{"cc", "-Ia", "-I", "b", "-iquote", "c", "-isystemd", "-include", "x.h", "-isysroot", "/s", "-DI=1", "-I"})
	want := []string{"a", "b", "c", "d"}
	if !slices.Equal(got, want) {
		t.Errorf("includeFlags = %q, want %q", got, want)
	}
}

func TestIncludePaths_RootAndOrder(t *testing.T) {
	files := map[string]bool{"compile_commands.json": true, "src/a.c": true, "inc/a.h": true, "third/b/b.h": true}
	db := `[{"directory": "/w/p/out", "file": "../src/a.c", "arguments": ["cc", "-I../third/b", "-I", "/w/p/inc", "-I../nowhere", "-I/usr/include", "-I../inc"]}]`
	got := IncludePaths(files, func(string) ([]byte, error) { return []byte(db), nil })
	if want := []string{"third/b", "inc"}; !slices.Equal(got["src/a.c"], want) || !slices.Equal(got[""], want) {
		t.Errorf("IncludePaths = %q, want src/a.c and \"\" → %q", got, want)
	}
	if got := IncludePaths(files, func(string) ([]byte, error) { return []byte("{"), nil }); got != nil {
		t.Errorf("undecodable database: %q, want nil", got)
	}
}

func TestIncludePaths_RelativeDirectory(t *testing.T) {
	files := map[string]bool{"src/a.c": true, "inc/a.h": true}
	db := `[{"directory": ".", "file": "src/a.c", "command": "cc -Iinc -I../up -c src/a.c"}]`
	got := IncludePaths(files, func(string) ([]byte, error) { return []byte(db), nil })
	if want := []string{"inc"}; !slices.Equal(got["src/a.c"], want) {
		t.Errorf("IncludePaths = %q, want src/a.c → %q", got, want)
	}
}
