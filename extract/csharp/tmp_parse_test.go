package csharp

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestTmpParse(t *testing.T) {
	root := os.Getenv("COS_LANG_DIR")
	if root == "" {
		t.Skip()
	}
	var files [][]byte
	lines := 0
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if strings.HasSuffix(p, ".cs") {
			data, _ := os.ReadFile(p)
			lines += strings.Count(string(data), "\n")
			files = append(files, data)
		}
		return nil
	})
	for round := 0; round < 3; round++ {
		c0 := cpuNow()
		for _, data := range files {
			tree, _ := ts.Parse(language, data)
			tree.Close()
		}
		c1 := cpuNow()
		for _, data := range files {
			fr := &lang.Result{Path: "x.cs"}
			extract(fr, data, &lang.Env{})
		}
		c2 := cpuNow()
		t.Logf("parse cpu %v (%.0f l/s), extract cpu %v (%.0f l/s)", c1-c0, float64(lines)/(c1-c0).Seconds(), c2-c1, float64(lines)/(c2-c1).Seconds())
	}
}
