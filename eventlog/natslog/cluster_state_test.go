package natslog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
)

// machine is one "machine" of the cluster tests: its own state folder
// (projections, snapshots, search index) on a log in the cluster's stream,
// and the tools over it, as cos serve runs them without a transport.
type machine struct {
	st *state.State
	r  *tools.Runner
}

// openMachine opens a fresh state folder whose log is the stream at store
// (nats://HOST:PORT/STREAM) and closes it at cleanup.
func openMachine(t testing.TB, store, client string) *machine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := state.Open(ctx, state.Options{Dir: t.TempDir(), Store: store, CreateStream: true, NATS: "off", Client: client,
		NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatalf("open a state folder on %s: %v", store, err)
	}
	t.Cleanup(func() {
		if err := st.Close(context.Background()); err != nil {
			t.Errorf("close the state folder of %s: %v", client, err)
		}
	})
	ix, err := indexing.New(st, indexing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &machine{st: st, r: tools.New(st, ix, tools.Options{})}
}

// call runs a tool on m with arguments args.
func (m *machine) call(ctx context.Context, name string, args map[string]any) envelope.Envelope {
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return m.r.Call(ctx, name, raw, envelope.Options{})
}

// stateOf returns m's position and combined state hash, caught up with
// every event committed before the call.
func (m *machine) stateOf(ctx context.Context, t testing.TB) (uint64, string) {
	t.Helper()
	var (
		seq  uint64
		hash string
	)
	if err := m.st.Read(ctx, func(v state.View) { seq, hash = v.Pos.Seq, v.StateHash() }); err != nil {
		t.Fatalf("read state: %v", err)
	}
	return seq, hash
}

// callTimeout bounds one tool call of the cluster tests: a call that
// needs longer after a leader change waited on a request nobody answers.
const callTimeout = 15 * time.Second

// callRetrying runs a write tool (args holding a request_id) on m until it
// answers with its task, as an agent would: a retryable error, or a write
// committed whose answer failed (only receipts), is sent again with the
// same request id, which replays. It returns the last envelope, and an
// error when it gave up or when an attempt took longer than callTimeout.
func (m *machine) callRetrying(ctx context.Context, name string, args map[string]any) (envelope.Envelope, error) {
	var (
		env  envelope.Envelope
		slow error
	)
	for attempt := 0; attempt < 50 && ctx.Err() == nil; attempt++ {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		t0 := time.Now()
		env = m.call(cctx, name, args)
		cancel()
		if d := time.Since(t0); d >= callTimeout && slow == nil {
			slow = fmt.Errorf("a call took %s (timed out): %.300s", d.Round(time.Millisecond), env.JSON())
		}
		if env.OK() {
			if _, ok := env.Data()["task"].(map[string]any); ok {
				return env, slow
			}
		} else if !env.Err().Retryable {
			return env, fmt.Errorf("%s", env.JSON())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return env, fmt.Errorf("gave up: %.300s", env.JSON())
}

// TestCluster_MachinesClaimThroughTools: eight machines, each a state
// folder whose log is the R3 stream through a different node, run
// cos_task_claim on the same task in 50 rounds (the winner releases it
// after each): every round has exactly one winner and seven E_CLAIMED
// answers naming it. At the end every machine shows the same position and
// the same state hash.
func TestCluster_MachinesClaimThroughTools(t *testing.T) {
	const machines, rounds = 8, 50
	c, _ := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()

	ms := make([]*machine, machines)
	for i := range ms {
		ms[i] = openMachine(t, c.ClientURL(i%c.Len())+"/"+clusterStream, fmt.Sprintf("machine-%d", i))
	}
	created := ms[0].call(ctx, "cos_task_create", map[string]any{"title": "One task, eight machines"})
	if !created.OK() {
		t.Fatalf("create: %s", created.JSON())
	}
	taskID := created.Data()["task"].(map[string]any)["task_id"].(string)

	for r := range rounds {
		envs := make([]envelope.Envelope, machines)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range ms {
			wg.Go(func() {
				<-start
				envs[i] = ms[i].call(ctx, "cos_task_claim", map[string]any{"task_id": taskID, "assignee": fmt.Sprintf("machine-%d", i)})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, e := range envs {
			switch {
			case e.OK() && winner >= 0:
				t.Fatalf("round %d: machines %d and %d both won the claim", r, winner, i)
			case e.OK():
				winner = i
			case e.Err().Code != envelope.CodeClaimed:
				t.Fatalf("round %d, machine %d: %s, want ok or E_CLAIMED", r, i, e.JSON())
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won the claim", r)
		}
		for i, e := range envs {
			if i != winner && e.Err().Details["holder"] != fmt.Sprintf("machine-%d", winner) {
				t.Fatalf("round %d, machine %d: conflict names holder %v, want machine-%d", r, i, e.Err().Details["holder"], winner)
			}
		}
		// The winner releases it through another machine's tools.
		rel := ms[(winner+1)%machines].call(ctx, "cos_task_release", map[string]any{"task_id": taskID, "assignee": fmt.Sprintf("machine-%d", winner)})
		if !rel.OK() {
			t.Fatalf("round %d: release: %s", r, rel.JSON())
		}
	}

	wantSeq, wantHash := ms[0].stateOf(ctx, t)
	if wantSeq != 1+2*rounds {
		t.Errorf("log at seq %d, want %d (a create, then a claim and a release per round)", wantSeq, 1+2*rounds)
	}
	for i, m := range ms[1:] {
		if seq, hash := m.stateOf(ctx, t); seq != wantSeq || hash != wantHash {
			t.Errorf("machine %d at seq %d with state hash %s; machine 0 at %d with %s", i+1, seq, hash, wantSeq, wantHash)
		}
	}
}

// TestCluster_TwoMachinesSameStateHash: two machines write concurrently
// through different nodes — tasks created, updated, claimed — while the
// stream leader is killed; both end at the same position with the same
// state hash, and a third machine opened afterwards on the restarted node
// (a fresh state folder catching up from the stream) agrees.
func TestCluster_TwoMachinesSameStateHash(t *testing.T) {
	c, _ := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	// Each machine creates and claims perMachine tasks: two events each.
	const perMachine = 40
	const total = 2 * 2 * perMachine
	a := openMachine(t, c.URL()+"/"+clusterStream, "machine-a")
	b := openMachine(t, c.URL()+"/"+clusterStream, "machine-b")

	var wg sync.WaitGroup
	errs := make(chan error, 2*perMachine)
	for k, m := range []*machine{a, b} {
		wg.Go(func() {
			for i := range perMachine {
				rid := fmt.Sprintf("m%d-create-%d", k, i)
				env, err := m.callRetrying(ctx, "cos_task_create", map[string]any{"title": fmt.Sprintf("task %d of machine %d", i, k), "request_id": rid})
				if err != nil {
					errs <- fmt.Errorf("machine %d create %d: %w", k, i, err)
					if !env.OK() {
						return
					}
				}
				task, _ := env.Data()["task"].(map[string]any)
				id, _ := task["task_id"].(string)
				if id == "" {
					return
				}
				_, err = m.callRetrying(ctx, "cos_task_claim", map[string]any{"task_id": id, "assignee": fmt.Sprintf("machine-%d", k), "request_id": rid + "-claim"})
				if err != nil {
					errs <- fmt.Errorf("machine %d claim %s: %w", k, id, err)
				}
			}
		})
	}
	// Kill the stream leader once a quarter of the events are in.
	var atKill uint64
	for atKill < total/4 {
		time.Sleep(5 * time.Millisecond)
		if h, err := a.st.Log().Head(ctx); err == nil {
			atKill = h.Seq
		}
	}
	old := c.KillLeader(clusterStream)
	t.Logf("stream leader %s killed at seq %d of %d", c.Name(old), atKill, total)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c.RestartNode(old)

	seqA, hashA := a.stateOf(ctx, t)
	seqB, hashB := b.stateOf(ctx, t)
	if seqA != total || seqA != seqB || hashA != hashB {
		t.Fatalf("machine a at %d with %s, machine b at %d with %s; want both at %d with the same hash", seqA, hashA, seqB, hashB, total)
	}
	c.WaitStreamLastSeq(old, clusterStream, seqA)
	fresh := openMachine(t, c.ClientURL(old)+"/"+clusterStream, "machine-c")
	if seq, hash := fresh.stateOf(ctx, t); seq != seqA || hash != hashA {
		t.Fatalf("a fresh machine on the restarted node at %d with %s, want %d with %s", seq, hash, seqA, hashA)
	}
}
