package tools

import "github.com/cos-dev/cos/state"

// Subscribe calls fn with each batch of events committed from now on — by
// this process or any other on the state folder (state.Subscribe). fn runs
// on a goroutine of its own, never concurrently with itself; Close the
// subscription to end it. Errors: state.ErrClosed after the state closed.
func (r *Runner) Subscribe(fn func(state.Changes)) (*state.Subscription, error) {
	return r.st.Subscribe(fn)
}

// ModuleWatch is an open WatchModules; Close ends it.
type ModuleWatch struct{ w *state.ModuleWatch }

// Close ends the watch. It is idempotent and does not wait.
func (w *ModuleWatch) Close() { w.w.Close() }

// WatchModules calls fn with the tools that are listed (ToolsEnabled) each
// time a module is switched on or off, in this process or any other.
// Errors: state.ErrClosed after the state closed.
func (r *Runner) WatchModules(fn func(enabled []*Tool)) (*ModuleWatch, error) {
	w, err := r.st.WatchModules(func(on map[string]bool) { fn(r.toolsOn(on)) })
	if err != nil {
		return nil, err
	}
	return &ModuleWatch{w: w}, nil
}

// ToolsEnabled returns the tools whose module is on, sorted by name: what
// a session should list. A tool called while its module is off still
// answers (E_MODULE_DISABLED).
func (r *Runner) ToolsEnabled() []*Tool { return r.toolsOn(r.st.ModuleStates()) }

func (r *Runner) toolsOn(on map[string]bool) []*Tool {
	var out []*Tool
	for _, t := range r.Tools() {
		if enabled, known := on[t.Module]; t.Module == "" || !known || enabled {
			out = append(out, t)
		}
	}
	return out
}
