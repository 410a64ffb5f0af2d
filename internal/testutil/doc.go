// Package testutil holds what the tests of several packages share: the
// -update flag of golden files, a FakeLog that stamps events without I/O,
// OpenLog, a real event log (the bbolt backend) checked at cleanup, and
// StartJetStream, an in-process nats-server cluster with JetStream on
// loopback whose nodes can be stopped, restarted and have their stream
// leader killed. It is imported by tests only.
//
// # Caveats
//
// testutil imports eventlog/boltlog, so boltlog's own internal tests
// (package boltlog) cannot use it: they keep their openTestLog. Importing
// testutil registers the -update flag; a test binary must not register
// another.
package testutil
