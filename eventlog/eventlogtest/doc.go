// Package eventlogtest is the black-box suite of the event log contract,
// eventlog.Log: what every implementation must do, asserted only through the
// interface and the types and errors of package eventlog.
//
// # Basics
//
// An implementation's test calls Run with an Opener:
//
//	func TestLog_Contract(t *testing.T) {
//		eventlogtest.Run(t, func(t *testing.T, name string) eventlog.Log {
//			return openMine(t, filepath.Join(dir(t), name))
//		})
//	}
//
// Run runs every case as a subtest named <area>/<case>
// (Append/StaleRevision, RequestID/Replay, …), so one case runs with
// -run 'Contract/RequestID/Replay'.
//
// # Caveats
//
// The suite assumes the default limits of package eventlog (request ids of
// up to eventlog.MaxRequestIDLen characters, events of up to
// eventlog.DefaultMaxEventBytes, far larger than the suite's); behaviour that depends on an option (receipt windows, event
// size limits, read chunks, clocks) or on the storage (corruption, locks,
// several processes) is tested by the implementation's own tests.
package eventlogtest
