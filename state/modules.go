package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/cos-dev/cos/internal/atomicfile"
)

// Modules are the subsystems a project can switch off.
var Modules = []string{"graph", "tasks", "evidence", "metrics"}

// ErrUnknownModule is returned by SetModule for a name not in Modules.
var ErrUnknownModule = errors.New("unknown module")

// moduleState is the JSON of ModulesFile: module id → enabled. A module not
// listed is enabled.
type moduleState struct {
	Modules map[string]bool `json:"modules"`
}

// moduleGate reads ModulesFile, re-reading it when its modification time or
// size changes, so `cos module disable` in another process takes effect on
// the next call of every running server.
type moduleGate struct {
	path string
	// mu guards the cached state.
	mu    sync.Mutex
	mtime time.Time
	size  int64
	state moduleState
}

func newModuleGate(stateDir string) *moduleGate {
	return &moduleGate{path: filepath.Join(stateDir, ModulesFile)}
}

// enabled reports whether module is on. An unreadable or malformed file
// leaves every module on and is reported in err.
func (g *moduleGate) enabled(module string) (bool, error) {
	if module == "" {
		return true, nil
	}
	st, err := os.Stat(g.path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return true, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !st.ModTime().Equal(g.mtime) || st.Size() != g.size {
		s, err := readModuleState(g.path)
		if err != nil {
			return true, err
		}
		g.state, g.mtime, g.size = s, st.ModTime(), st.Size()
	}
	on, listed := g.state.Modules[module]
	return !listed || on, nil
}

func readModuleState(path string) (moduleState, error) {
	var s moduleState
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ModuleStatus is one row of `cos module list`.
type ModuleStatus struct {
	ID      string `json:"id"`
	Enabled bool   `json:"enabled"`
}

// ListModules returns every module and whether it is enabled in stateDir.
func ListModules(stateDir string) ([]ModuleStatus, error) {
	s, err := readModuleState(filepath.Join(stateDir, ModulesFile))
	if err != nil {
		return nil, err
	}
	out := make([]ModuleStatus, 0, len(Modules))
	for _, m := range Modules {
		on, listed := s.Modules[m]
		out = append(out, ModuleStatus{ID: m, Enabled: !listed || on})
	}
	return out, nil
}

// SetModule enables or disables a module in stateDir, rewriting the state
// file atomically (temp → fsync → rename → fsync folder).
func SetModule(stateDir, module string, enabled bool) error {
	if !slices.Contains(Modules, module) {
		ids := append([]string(nil), Modules...)
		sort.Strings(ids)
		return fmt.Errorf("%w %q: one of %v", ErrUnknownModule, module, ids)
	}
	path := filepath.Join(stateDir, ModulesFile)
	s, err := readModuleState(path)
	if err != nil {
		return err
	}
	if s.Modules == nil {
		s.Modules = map[string]bool{}
	}
	s.Modules[module] = enabled
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := EnsureDir(stateDir); err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}
