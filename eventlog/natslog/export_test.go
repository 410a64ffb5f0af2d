package natslog

import "os"

// SetPipeline switches the pipelined commit of one-event rounds on or off
// (off: every round of several requests is an atomic batch) and returns a
// function that restores the previous setting. Not safe while a Log
// appends.
func SetPipeline(on bool) (restore func()) {
	old := usePipeline
	usePipeline = on
	return func() { usePipeline = old }
}

// COS_NATSLOG_PIPELINE=0 runs every test and benchmark of the package
// with atomic batches only, to compare the two commits.
func init() {
	if os.Getenv("COS_NATSLOG_PIPELINE") == "0" {
		usePipeline = false
	}
}
