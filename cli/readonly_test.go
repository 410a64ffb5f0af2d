package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tmpfs mounts a tmpfs of size bytes on a fresh folder and unmounts it at
// cleanup; the test is skipped where mounting is not allowed.
func tmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): needs root or CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// remountReadOnly makes the tmpfs at dir read-only.
func remountReadOnly(t *testing.T, dir string) {
	t.Helper()
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount %s read-only: %v", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "probe"), nil, 0o644); err == nil {
		t.Fatal("the remounted folder is still writable")
	}
}

// TestReadOnlyStateFolder_ReadsWorkWritesRefused: a state folder on a
// read-only mount still answers reads, through cos call and cos serve;
// writes get E_READ_ONLY naming the folder, and health says so.
func TestReadOnlyStateFolder_ReadsWorkWritesRefused(t *testing.T) {
	mnt := tmpfs(t, 16<<20)
	dir := filepath.Join(mnt, "state")
	fiveTasks(t, dir)
	remountReadOnly(t, mnt)

	board := callEnv(t, dir, "cos_task_board", `{}`)
	if !board.OK {
		t.Fatalf("cos call cos_task_board on a read-only folder: %+v", board.Error)
	}
	if !strings.Contains(fmt.Sprint(board.Data), "MARKE") {
		t.Errorf("board lacks the tasks: %v", board.Data)
	}
	h := callEnv(t, dir, "cos_health", `{}`)
	if !h.OK || h.Data["writable"] != false {
		t.Errorf("cos_health on a read-only folder: ok %v writable %v, want writable false", h.OK, h.Data["writable"])
	}
	w := callEnv(t, dir, "cos_task_create", `{"title":"x"}`)
	if w.OK || w.Error.Code != "E_READ_ONLY" || !strings.Contains(w.Error.Message, dir) {
		t.Fatalf("write on a read-only folder = %+v, want E_READ_ONLY naming %s", w, dir)
	}

	// cos serve over stdio answers a read.
	cmd := cosProcess(t, "--state-dir", dir, "serve", "--nats", "off", "--index=false")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := io.WriteString(in, s+"\n"); err != nil {
			t.Fatalf("write to cos serve: %v (stderr %s)", err, stderr.String())
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cos_task_board","arguments":{}}}`)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("cos serve ended on a read-only folder; stderr:\n%s", stderr.String())
			}
			var m struct {
				ID     int `json:"id"`
				Result struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
			}
			if json.Unmarshal([]byte(l), &m) != nil || m.ID != 2 {
				continue
			}
			if m.Result.IsError || len(m.Result.Content) == 0 || !strings.Contains(m.Result.Content[0].Text, "MARKE") {
				t.Fatalf("cos serve tools/call on a read-only folder: %s", l)
			}
			return
		case <-deadline:
			t.Fatalf("no answer from cos serve; stderr:\n%s", stderr.String())
		}
	}
}

// TestFullDisk_MessageSaysWhatToDo: when the disk fills, a write says the
// disk is full and to free space, and never tells a caller who sent no
// request_id to retry with the same request_id.
func TestFullDisk_MessageSaysWhatToDo(t *testing.T) {
	mnt := tmpfs(t, 4<<20)
	dir := filepath.Join(mnt, "state")
	fiveTasks(t, dir)
	// Fill the disk.
	f, err := os.Create(filepath.Join(mnt, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	_ = f.Close()
	big := strings.Repeat("x", 19_000)
	check := func(what, msg string) {
		t.Helper()
		if !strings.Contains(msg, "full") || !strings.Contains(msg, "free space") {
			t.Errorf("%s: the message does not say the disk is full and to free space: %s", what, msg)
		}
		if strings.Contains(msg, "retry with the same request_id") || strings.Contains(msg, "resend the identical request with the same request_id") {
			t.Errorf("%s sent no request_id but is told to retry with the same one: %s", what, msg)
		}
	}
	failed := false
	for i := 0; i < 200 && !failed; i++ {
		env := callEnv(t, dir, "cos_task_create", fmt.Sprintf(`{"title":"t%d","description":%q}`, i, big))
		if !env.OK {
			failed = true
			check("cos call cos_task_create", env.Error.Message)
		}
	}
	if !failed {
		t.Fatal("200 writes of 19 kB fitted on a full 4 MiB disk")
	}
	code, _, errs := run(t, dir, "log", "append", "--stream", "s", "--type", "a.b", "--data", fmt.Sprintf(`{"x":%q}`, big))
	if code == 0 {
		t.Fatal("cos log append succeeded on a full disk")
	}
	check("cos log append", errs)
}
