// Package evidence keeps what each agent role produced in one working
// session: the evidence bundle, its role registry (overridable by roles.json,
// docs/storage.md), its reducer and its JSON export.
//
// # Basics
//
// A session's records go to the log stream "evidence:<session>" (session
// ids: 1–128 characters of A–Z a–z 0–9 . _ -, not starting with "."). A
// record is an output of a role or one of three accumulators:
//
//	kind              event type                    bundle field
//	output            evidence.output_recorded      roles[<role>] (one slot per role)
//	backtrack         evidence.backtrack_recorded   backtracks
//	discovery         evidence.discovery_recorded   discoveries
//	degraded_formula  evidence.formula_degraded     degraded_formulas
//
// Every payload is a Record{role, output, task}. cos_supervise_record_output
// calls Registry.Prepare, which validates the output against the role's
// output_class (or the kind's class) and returns the stream, type and
// canonical payload to append; then, after the append, Export writes the
// bundle read back from the projection.
//
// # Task references
//
// A record made with a task_id carries a TaskRef: the task, the seq of the
// view it was read in, its holder, and the symbols its work touched (the
// derived footprint's, with work tree, base, head and files, or the
// touches resolved on the graph). The tool builds it; the reducer checks
// only its shape. Bundle.Tasks keeps the latest reference per task.
// docs/evidence.md gives the post-mortem path through "at": seq.
//
// # Role registry
//
// DefaultRegistry maps planner→plan, researcher→findings,
// implementer→change, tester→test_report, reviewer→review; each class lists
// its fields with a type, whether it is required, and a corrected example.
// LoadRegistry merges <stateDir>/roles.json over the defaults. Unknown
// output fields are rejected, naming the accepted ones.
//
// # Reducer
//
// Bundles (Name "evidence") folds the evidence:* streams into one Bundle per
// session. It checks structure only — never the registry, which may change —
// so its state, and StateHash, are a function of the log alone. Sessions
// never share state: each lives in its own stream and its own Bundle.
//
// # Caveats
//
// Export is atomic and monotonic per session (a lock file serialises
// writers, and a file already holding a later revision is left alone), but
// it runs after the append: a crash between the two leaves the file one
// record behind until the next export.
package evidence
