package bus

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Environment of a child process started by startChild.
const (
	envChild     = "COS_BUS_TEST_CHILD"
	envState     = "COS_BUS_TEST_STATE"
	envHeartbeat = "COS_BUS_TEST_HEARTBEAT"
	envPosition  = "COS_BUS_TEST_POSITION"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		os.Exit(childMain())
	}
	goleak.VerifyTestMain(m)
}

// childStatus is the one line a child writes on stdout once its bus is open.
type childStatus struct {
	PID     int    `json:"pid"`
	Hosting bool   `json:"hosting"`
	URL     string `json:"url"`
	Err     string `json:"err,omitempty"`
}

// childMain is a cos-like process: it opens a bus on the state folder named
// by the environment, reports its state on stdout, and keeps the bus open
// until its stdin closes (or it is killed).
func childMain() int {
	hb, _ := time.ParseDuration(os.Getenv(envHeartbeat))
	pos, _ := strconv.ParseUint(os.Getenv(envPosition), 10, 64)
	b, err := Open(context.Background(), Options{
		StateDir:          os.Getenv(envState),
		HeartbeatInterval: hb,
		ReconnectWait:     50 * time.Millisecond,
		Position:          func() uint64 { return pos },
	})
	enc := json.NewEncoder(os.Stdout)
	if err != nil {
		_ = enc.Encode(childStatus{PID: os.Getpid(), Err: err.Error()})
		return 1
	}
	st := b.State()
	if err := enc.Encode(childStatus{PID: os.Getpid(), Hosting: st.Hosting, URL: st.URL}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := b.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
