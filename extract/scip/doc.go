// Package scip reads SCIP indexes (github.com/sourcegraph/scip), the
// symbol-accurate output of compiler-grade indexers such as scip-python and
// scip-typescript, with the SCIP project's own Go bindings.
package scip
