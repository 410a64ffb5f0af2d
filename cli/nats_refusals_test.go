package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/nats-io/nats.go/jetstream"
)

// natsEnv runs `cos --store store call tool args` in dir and decodes the
// envelope.
func natsEnv(t *testing.T, dir, store, tool, args string) testutil.Envelope {
	t.Helper()
	_, out, errs := run(t, dir, "--store", store, "call", tool, args)
	var env testutil.Envelope
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("cos call %s: %v\nstdout %s\nstderr %s", tool, err, out, errs)
	}
	return env
}

// TestLogInit_OnlyInitCreatesAStream: a command on a NATS store whose
// stream does not exist fails saying `cos log init`, and creates nothing;
// `cos log init` creates it, and a second one leaves it as it is.
func TestLogInit_OnlyInitCreatesAStream(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store := js.URL() + "/FRESH"
	code, _, stderr := run(t, t.TempDir(), "--store", store, "call", "cos_task_create", `{"title":"a"}`)
	if code == 0 || !strings.Contains(stderr, "cos log init") {
		t.Fatalf("create on a missing stream: exit %d, %q; want a failure naming `cos log init`", code, stderr)
	}
	jsc, err := jetstream.New(js.Connect(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jsc.Stream(context.Background(), "FRESH"); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("a command created the stream (%v)", err)
	}
	logInit(t, store)
	if code, out, stderr := run(t, t.TempDir(), "--store", store, "log", "init", "--json"); code != 0 || !strings.Contains(out, `"created":false`) {
		t.Fatalf("second cos log init: exit %d, %q %q; want created false", code, out, stderr)
	}
	if env := natsEnv(t, t.TempDir(), store, "cos_task_create", `{"title":"a"}`); !env.OK {
		t.Fatalf("create after init: %+v", env.Error)
	}
}

// TestLogAppend_EmptyCheckIsAnError: on both stores, an empty
// --expect-revision or --expected-hash is a usage error (exit 2) and
// writes nothing, rather than an append without the check it names.
func TestLogAppend_EmptyCheckIsAnError(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	nats := js.URL() + "/CHECKS"
	logInit(t, nats)
	for _, store := range []string{filepath.Join(t.TempDir(), "events.db"), nats} {
		dir := t.TempDir()
		base := []string{"--store", store, "log", "append", "--stream", "s", "--type", "a.b", "--data", "{}"}
		if code, _, stderr := run(t, dir, base...); code != 0 {
			t.Fatalf("%s: first append: %s", store, stderr)
		}
		for _, flag := range []string{"--expect-revision", "--expected-hash"} {
			code, out, stderr := run(t, dir, append(base, flag, "")...)
			if code != ExitUsage || !strings.Contains(stderr, flag) || out != "" {
				t.Errorf("%s: %s \"\": exit %d, stdout %q, stderr %q; want a usage error naming the flag", store, flag, code, out, stderr)
			}
		}
		if _, out, _ := run(t, dir, "--store", store, "log", "head"); strings.TrimSpace(out) != "1" {
			t.Errorf("%s: head %q after the refused appends; want 1", store, out)
		}
	}
}

// TestNATSStore_DamagedStreamKeepsItsDiagnostics: with a foreign message
// at the head of the stream, cos_health still answers — with the
// integrity state and the head's error in it — and `cos log head` points
// at what works on a stream (salvage and migrate), not `cos restore`.
func TestNATSStore_DamagedStreamKeepsItsDiagnostics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store := js.URL() + "/COS"
	logInit(t, store)
	dir := t.TempDir()
	if env := natsEnv(t, dir, store, "cos_task_create", `{"title":"a"}`); !env.OK {
		t.Fatalf("create: %+v", env.Error)
	}
	nc := js.Connect(0)
	if err := nc.Publish("cos.cos.log.x", []byte(`{"seq":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, t.TempDir()} {
		env := natsEnv(t, d, store, "cos_health", `{}`)
		if !env.OK {
			t.Fatalf("cos_health on a damaged stream: %+v; want an answer", env.Error)
		}
		integ, _ := env.Data["integrity"].(map[string]any)
		if integ["ok"] != false || integ["first_bad_seq"] != 2.0 {
			t.Errorf("cos_health integrity = %v; want ok false, first_bad_seq 2", integ)
		}
		if lg, _ := env.Data["log"].(map[string]any); lg["error"] == nil {
			t.Errorf("cos_health log = %v; want the head's error", lg)
		}
	}
	code, _, stderr := run(t, dir, "--store", store, "log", "head")
	if code != ExitError || !strings.Contains(stderr, "E_INTEGRITY") || !strings.Contains(stderr, "migrate --to") || strings.Contains(stderr, "cos restore") {
		t.Fatalf("cos log head: exit %d, %q; want E_INTEGRITY advising salvage and migrate, not restore", code, stderr)
	}
}

// TestMigrate_FailedCopyIntoStreamSaysWhatToDo: a migrate into a stream
// that fails after copying (here: the source grew during the copy) says
// the stream keeps the partial copy, refuses purges and reuse, and how to
// remove it.
func TestMigrate_FailedCopyIntoStreamSaysWhatToDo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	dir := t.TempDir()
	fiveTasks(t, dir)
	target := js.URL() + "/PARTIAL"
	errw := &growingSource{t: t, dir: dir}
	var out strings.Builder
	code := Run(t.Context(), []string{"--state-dir", dir, "migrate", "--to", target}, IO{In: strings.NewReader(""), Out: &out, Err: errw})
	stderr := errw.buf.String()
	if code != ExitError || !strings.Contains(stderr, "STALE_READ") || !strings.Contains(stderr, "nats stream rm PARTIAL") {
		t.Fatalf("migrate with a write during the copy: exit %d, stderr %q; want STALE_READ naming `nats stream rm PARTIAL`", code, stderr)
	}
	// What it says works: the stream removed, the migrate goes through.
	jsc, err := jetstream.New(js.Connect(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := jsc.DeleteStream(context.Background(), "PARTIAL"); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, dir, "migrate", "--to", target); code != 0 {
		t.Fatalf("migrate after removing the partial stream: exit %d, %s", code, stderr)
	}
}

// TestReadCommands_MissingStreamSaysSo: `cos log head`, `cos log`, `cos
// verify` and `cos watch` on a NATS store whose stream does not exist
// fail at once saying so (naming `cos log init`) and create nothing;
// before, head printed 0, log printed nothing and watch waited forever.
func TestReadCommands_MissingStreamSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store := js.URL() + "/NOSUCH"
	for _, args := range [][]string{{"log", "head"}, {"log"}, {"verify"}, {"watch", "--json"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var out, errb testutil.SyncBuffer
		code := Run(ctx, append([]string{"--state-dir", t.TempDir(), "--store", store}, args...), IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		timedOut := ctx.Err() != nil
		cancel()
		if code == 0 || timedOut || !strings.Contains(errb.String(), "NOSUCH") || !strings.Contains(errb.String(), "cos log init") {
			t.Errorf("cos %s on a missing stream: exit %d (timed out %t), stdout %q, stderr %q; want a failure naming the stream and `cos log init`",
				strings.Join(args, " "), code, timedOut, out.String(), errb.String())
		}
	}
	jsc, err := jetstream.New(js.Connect(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jsc.Stream(context.Background(), "NOSUCH"); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("a read command created the stream (%v)", err)
	}
}

// TestLogInit_SingleReplica: a stream of one replica nobody said was
// intended is reported — cos log init prints its replicas and a warning,
// every command that opens it warns on stderr, cos_health says replicas 1
// with log.warning — until `cos log init --single-replica` records the
// intent in the stream; a stream created with the flag is never warned
// about; the flag on a log file is a usage error.
func TestLogInit_SingleReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	plain := js.URL() + "/PLAIN"
	code, out, stderr := run(t, t.TempDir(), "--store", plain, "log", "init", "--json")
	var rep logInitReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || !rep.Created || rep.Replicas != 1 || !strings.Contains(rep.Warning, "--single-replica") {
		t.Fatalf("log init of one server: exit %d, %q (%v), stderr %q; want created, replicas 1 and a warning naming --single-replica", code, out, err, stderr)
	}
	health := func(store string) map[string]any {
		t.Helper()
		env := natsEnv(t, t.TempDir(), store, "cos_health", `{}`)
		if !env.OK {
			t.Fatalf("cos_health: %+v", env.Error)
		}
		lh, _ := env.Data["log"].(map[string]any)
		return lh
	}
	if lh := health(plain); lh["replicas"] != 1.0 || !strings.Contains(fmt.Sprint(lh["warning"]), "one replica") {
		t.Fatalf("cos_health log = %v; want replicas 1 and the warning", lh)
	}
	if _, _, stderr := run(t, t.TempDir(), "--store", plain, "log", "head"); !strings.Contains(stderr, "one replica") {
		t.Fatalf("log head stderr %q; want the warning", stderr)
	}
	if code, out, stderr := run(t, t.TempDir(), "--store", plain, "log", "init", "--single-replica"); code != 0 || !strings.Contains(out, "recorded as intended") || strings.Contains(stderr, "warning") {
		t.Fatalf("log init --single-replica on the existing stream: exit %d, %q, stderr %q", code, out, stderr)
	}
	if lh := health(plain); lh["replicas"] != 1.0 || lh["warning"] != nil {
		t.Fatalf("cos_health log after --single-replica = %v; want replicas 1, no warning", lh)
	}
	if _, _, stderr := run(t, t.TempDir(), "--store", plain, "log", "head"); strings.Contains(stderr, "one replica") {
		t.Fatalf("log head stderr %q after --single-replica; want no warning", stderr)
	}

	intended := js.URL() + "/INTENDED"
	code, out, stderr = run(t, t.TempDir(), "--store", intended, "log", "init", "--single-replica", "--json")
	rep = logInitReport{}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || !rep.Created || rep.Replicas != 1 || rep.Warning != "" {
		t.Fatalf("log init --single-replica of a new stream: exit %d, %q (%v), stderr %q; want created, replicas 1, no warning", code, out, err, stderr)
	}
	if code, _, stderr := run(t, t.TempDir(), "--store", filepath.Join(t.TempDir(), "events.db"), "log", "init", "--single-replica"); code != ExitUsage || !strings.Contains(stderr, "--single-replica") {
		t.Fatalf("--single-replica on a log file: exit %d, %q; want a usage error", code, stderr)
	}
}
