package resolve

import "testing"

// TestPlatformFile checks the build-constraint preference used to pick one
// of several same-named Go declarations.
func TestPlatformFile(t *testing.T) {
	if !platformFile("os/file.go") || !platformFile("os/file_unix.go") {
		t.Error("files without a platform suffix must fit")
	}
	if platformFile("os/file_plan9.go") && platformFile("os/file_windows.go") {
		t.Error("two different GOOS suffixes cannot both fit")
	}
	if platformFile("runtime/asm_s390x.go") && platformFile("runtime/asm_riscv64.go") {
		t.Error("two different GOARCH suffixes cannot both fit")
	}
}
