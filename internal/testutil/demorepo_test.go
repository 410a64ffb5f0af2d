package testutil

import "testing"

// The demo repository loads whole from its embedded files: the wire
// goldens of package mcp pin its exact content.
func TestDemoRepo_Files(t *testing.T) {
	want := []string{"go.mod", "main.go", "hello.go", "util/greet.go", "README.md"}
	if len(DemoRepo) != len(want) {
		t.Fatalf("DemoRepo has %d files, want %d: %v", len(DemoRepo), len(want), DemoRepo)
	}
	for _, p := range want {
		if DemoRepo[p] == "" {
			t.Errorf("DemoRepo lacks %s", p)
		}
	}
	if DemoRepo["go.mod"] != "module example.com/demo\n\ngo 1.22\n" {
		t.Errorf("go.mod = %q", DemoRepo["go.mod"])
	}
}
