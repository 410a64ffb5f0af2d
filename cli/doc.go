// Package cli is the cos command line: Run parses arguments with cobra and
// runs one subcommand against the state folder. cmd/cos is a thin main over
// Run, so every subcommand is tested by calling Run.
//
// The state folder comes from --state-dir, else $COS_STATE_DIR, else ./.cos
// (made absolute; docs/storage.md). stdout carries the command's answer only
// (for `cos serve` it is the MCP stream); diagnostics go to stderr.
//
// Exit codes: 0 success, 1 the command failed (its error code and message are
// on stderr), 2 the command line itself was wrong.
package cli
