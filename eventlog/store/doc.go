// Package store opens an event log by its store address — a bbolt file
// (package eventlog/boltlog) or a NATS JetStream stream (package
// eventlog/natslog) — and does what works on a whole log: Backup of a file,
// Salvage of a damaged log into a new file, Import of a log into an empty
// stream or a new file, VerifyFile. It is the one place a backend is
// chosen; the logs it returns are eventlog.Logs.
//
// # Basics
//
// Parse turns a store address ("", a file path, or
// nats://HOST:PORT[,nats://HOST:PORT…][/STREAM]) into an Address; Open
// opens the log there. state.OpenLog adds what a state folder needs around
// it (the folder itself, and E_UNAVAILABLE envelopes for a NATS store whose
// servers do not answer).
//
// # Caveats
//
// Errors are the backends' and package eventlog's: this package builds no
// envelope. ErrDestExists, ErrNotEmpty and ErrUnavailable are the
// backends' sentinels under one name.
package store
