package boltlog_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/eventlogtest"
	"github.com/cos-dev/cos/internal/testutil"
)

// TestLog_Contract runs the eventlog.Log contract suite against the bbolt log:
// each test's log "name" is <temp dir of the test>/<name>/events.db, closed
// and chain-verified at cleanup.
func TestLog_Contract(t *testing.T) {
	var (
		mu   sync.Mutex
		dirs = map[*testing.T]string{}
	)
	eventlogtest.Run(t, func(t *testing.T, name string) eventlog.Log {
		mu.Lock()
		dir, ok := dirs[t]
		if !ok {
			dir = t.TempDir()
			dirs[t] = dir
		}
		mu.Unlock()
		return testutil.OpenLogAt(t, filepath.Join(dir, name, "events.db"), boltlog.Options{})
	})
}
