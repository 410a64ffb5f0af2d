// Command deadaccuracy compares cos's dead-code audit of Go (query's
// AuditFunctions, the answer of cos_graph_audit {check: "dead"}) with
// golang.org/x/tools/cmd/deadcode, and prints agreement, precision and
// recall as Markdown, with every disagreement sorted into a reason.
//
//	go run ./scripts/deadaccuracy [-v] [-top 10] [-json FILE] [-project cobra,nethttp]
//	go run ./scripts/deadaccuracy [-v] -dir DIR [-filter REGEXP]
//
// # The oracle
//
// deadcode (built from the x/tools this module requires) runs with -test
// -json over ./... in the project's folder: the roots are the test
// binaries' main and init (so every test, benchmark, fuzz target and
// example with an output comment) and the init functions of the packages
// they link; it computes reachability by Rapid Type Analysis over SSA.
// cos indexes the same folder with extract.Run and asks for dead code with
// the same roots: the tests, main and init, exported API not a root
// (include_exported false).
//
// # What is compared
//
// Every function and method cos judges (kind function or method, in a .go
// file, not an interface method, not left out of the build), except those
// in testdata folders and in generated files (deadcode does not report
// them) and those of packages the filter leaves out. A function is dead
// for deadcode when it is listed (matched by file and line), for cos when
// the audit lists it, certain or uncertain. Agreement is the share of
// judged functions both call the same; precision and recall are over the
// dead ones, deadcode's being the truth.
//
// # Reasons
//
// A disagreement is put in the first class that fits: cos dead, deadcode
// live — "uncertain" (cos said so: a func value, reflection or an outside
// interface), "marker" (a method deadcode never reports), "other"; cos live,
// deadcode dead — "example_without_output" (go test compiles it and never
// runs it), "interface_dispatch" (a method of a type satisfying an
// interface of the graph: cos dispatches to every implementation, RTA only
// to types converted to an interface), "outside_interface" (an exported
// method of a type in use that satisfies an interface declared outside
// the graph), "func_value" (used as a value: RTA keeps it only when a
// call of its signature is reachable), "other".
//
// Default projects: spf13/cobra at adbc8813901b (fetched with git into
// $COS_ORACLE_CACHE/src/cobra) and net/http of the running Go ($(go env
// GOROOT)/src/net/http, filter ^net/http(_test)?($|/), so external test packages count).
package main
