package extract_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// entrypointsFixture is a module whose packages register entry points with
// the real frameworks, at the versions its go.mod pins.
const entrypointsFixture = "testdata/entrypoints"

// TestRun_GoEntrypoints indexes the entry points fixture and checks every
// entry node and handled_by edge against its want.txt: net/http, chi, gin,
// echo, gorilla/mux, cobra, urfave/cli v2 and v3, mcp-go, gRPC, NATS,
// gorilla/websocket, coder/websocket, main and init. The frameworks'
// modules are downloaded first when the module cache lacks them; the test
// is skipped only when they cannot be downloaded.
func TestRun_GoEntrypoints(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads the frameworks' modules")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download")
	cmd.Dir = entrypointsFixture
	cmd.Env = append(cmd.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := string(out)
		if strings.Contains(msg, "dial tcp") || strings.Contains(msg, "no such host") || strings.Contains(msg, "GOPROXY=off") || strings.Contains(msg, "proxy") || ctx.Err() != nil {
			t.Skipf("the module proxy is unreachable, the frameworks' modules cannot be downloaded: %v\n%s", err, msg)
		}
		t.Fatalf("go mod download: %v\n%s", err, msg)
	}
	spec := loadWant(t, filepath.Join(entrypointsFixture, wantFile))
	x := runIndex(t, copyFixture(t, entrypointsFixture), t.TempDir(), nil)
	if report := check(spec, x.payloads); report != "" {
		t.Error(report)
	}
}
