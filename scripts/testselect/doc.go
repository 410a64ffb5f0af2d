// Command testselect measures the tests cos changes --tests selects
// against per-test coverage, on a real repository's history.
//
// For each of the last N commits that touch non-test Go files, it checks
// the commit out in a git worktree and computes the oracle: every test
// function of every package (go test -list, benchmarks left out) runs
// alone (-run '^T$') from a test binary built with -coverpkg=./..., and a
// test covers the change when its profile counts a statement block as
// run on a line the commit added or changed (git diff -U0 parent..commit,
// new side; a deletion-only hunk has no new line and counts for no test).
// Profiles are cached under the cache folder, by commit.
//
// cos's side indexes the commit (its worktree) into a fresh state folder
// and runs cos changes --base parent --json from the worktree: the diff
// parent..work tree is the commit. Its tests_to_run commands are read back
// into (package, test) pairs; "go test ./pkg" stands for every test of the
// package.
//
// The report gives per commit and in total: recall (oracle tests selected
// / oracle tests), precision (oracle tests selected / tests selected), the
// selection's size beside the suite's, and every missed test with the
// changed lines it covers.
package main
