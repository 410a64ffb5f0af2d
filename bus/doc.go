// Package bus carries committed log events between the cos processes that
// share one state folder, and to anyone watching, over NATS
// (docs/architecture.md, processes and the bus).
//
// # Basics
//
// A Bus is opened in one of three modes (Options.Mode):
//
//   - "auto" (the default): connect to the embedded server recorded in the
//     state folder, or elect a host and start one. The election is a lock
//     file, <state>/nats.lock, taken with a non-blocking flock and held for the
//     host's lifetime, so two processes never both host. The host starts an
//     in-process nats-server on 127.0.0.1, preferring the port recorded last
//     time so that clients reconnect to the same URL, records it in
//     <state>/nats.json (written temp → fsync → rename → fsync dir) and then
//     connects to itself as an ordinary client. When the host dies, the
//     survivors notice the disconnect, one of them wins the lock and takes
//     over, and the others reconnect.
//   - a nats:// URL: use an external server or cluster; nobody hosts.
//   - "off": Publish does nothing, subscriptions never fire, State says off.
//
// Every event is published on
//
//	cos.<namespace>.events.<type>
//
// with the headers Cos-Seq, Cos-Stream and Nats-Msg-Id (the event id) and the
// event's JSON as the body. Event types are dotted ("task.updated"), so
// "cos.<ns>.events.task.>" watches every task event. The namespace is
// Options.Namespace, or a short hash of the state folder's absolute path, so
// that two projects on one server stay apart.
//
// Each process also heartbeats on cos.<namespace>.presence (pid, host, start
// time, log position); Peers lists the processes heard from within three
// heartbeat intervals.
//
// # Caveats
//
// Core NATS is at-most-once. A message is a doorbell, never the truth: a
// subscriber that sees a gap in Seq, or that was disconnected (see
// OnReconnect), must read the log. Publish is fire-and-forget; while the
// connection is down, messages are buffered up to a bounded size and then
// refused with an error rather than blocking.
//
// The embedded server is configured so that it can never end the process: it
// installs no signal handlers, and its logger turns Fatalf into an error-level
// slog record. A port that is already taken makes the host fall back to a
// random free port; it never makes a process exit.
//
// The embedded server listens on the loopback interface only and requires
// the user name and password of <state>/nats-auth.json (AuthFile, mode
// 0600): the first host generates them, later hosts keep them, every
// process of the folder reads them on each (re)connect, and a connection
// without them is refused. A URL given as Options.Mode is used as given and
// may carry its own credentials; State, logs and errors never show them.
//
// Even so, a message is never the truth: a cos process reads only a
// message's Cos-Seq header (SubscribeSeqs) and takes the events from the
// log. Subscribe hands over bodies as they arrived, for watchers.
package bus
