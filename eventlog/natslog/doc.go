// Package natslog is the event log in a NATS JetStream stream: the
// eventlog.Log of several machines sharing one log. It keeps every rule of
// package eventlog — gapless seqs, per-stream revisions, the SHA-256 hash
// chain, request-id receipts, CAS — exactly as eventlog/boltlog does, so
// a log copied between the two (cos migrate) keeps its seqs, ids and
// hashes, and Verify is the same walk.
//
// # Basics
//
// One cos log is one JetStream stream (Options.Stream, default "COS") with
// the one subject filter cos.<ns>.log.> (ns: the stream name in lower
// case). Each event is one message on cos.<ns>.log.<token>, the token
// being its cos stream name encoded as one subject token (EncodeToken:
// bytes outside [A-Za-z0-9:_-] become %XX, canonically, so the mapping is
// one to one). Nothing else is ever published on the stream, so the
// stream sequence of a message is the seq of its event.
//
// Open creates the stream when it is missing only with Options.Create
// (`cos log init`, an import): otherwise a missing stream is ErrNoStream —
// for a read-only open too, and for every call of a handle whose stream
// was deleted after it opened (an Append too, not "unavailable") —
// so a stream that was deleted, or a cluster rebuilt with empty disks, is
// never silently replaced by an empty log; and a handle whose stream ends
// before the head it has read answers an *eventlog.IntegrityError from
// Head, Read, Verify and Append. The stream it creates (StreamConfig) has file
// storage, no limits, DenyDelete and DenyPurge (a committed event can
// never be removed through the API), atomic batch publish allowed, and
// the metadata cos_log_format = 1. It refuses, with eventlog.ErrFormat, a
// stream without that metadata, or one configured so that events could be
// dropped, deleted or rewritten (limits, memory storage, rollups, TTLs,
// mirrors, sources, transforms).
//
// # Messages
//
// A message's data is the event as JSON, every field including seq,
// prev_hash and hash (the body of a boltlog record). Its headers:
//
//	Nats-Msg-Id                          the event's ULID
//	Cos-Intent, Cos-Events               on the first message of a request with a
//	                                     request id: the canonical intent hash
//	                                     (hex) and the request's number of events
//	Cos-Stream-Prefix                    on the first message of a request whose
//	                                     stream was allocated: the prefix
//	Nats-Expected-Last-Sequence          the condition of every publish (below)
//	Nats-Expected-Last-Subject-Sequence  on the first message of each cos stream
//	                                     in a publish: the stream's last event
//	Nats-Expected-Last-Msg-Id            on pipelined messages after the first
//	Nats-Batch-Id, -Sequence, -Commit    on the messages of an atomic batch
//
// # Writing
//
// Every handle keeps a model of the log it has read: each cos stream's
// revision, last seq and hash, the allocation counters, the receipts of
// the window. Open reads the stream once to build it (from its checkpoint,
// below, when it has one), checking each link of the hash chain; later the
// handle reads only what others wrote.
//
// Concurrent Appends on one handle are grouped by one committer goroutine.
// Each round decides the queued requests in order against the model —
// receipt, then CAS, then new events chained onto the previous one — so a
// request that is stale or reuses a request id fails alone and writes
// nothing, without sinking its neighbours. The round's messages are then
// published on condition that the stream's last sequence is the model's
// head (Nats-Expected-Last-Sequence): the hash chain is global, so a
// publish decided on anything but the whole log must not commit. When the
// condition fails (JetStream error 10071 "wrong last sequence", or 10164,
// its form without a sequence; both mean another writer committed first)
// nothing was stored: the handle reads what the other wrote and decides
// the round again. A round that writes nothing (every request a replay or
// an error) is answered only after the handle has confirmed that its model
// is the whole log.
//
// A round in which some request writes several events is one atomic
// batch (Nats-Batch-Id …; the condition rides on the first message, as
// the server requires; at most 1,000 messages, the server's limit, so a
// call is split between requests and a request of more events than
// Options.MaxBatchEvents is refused). The server stores all of it or none.
// A round of one-event requests — the common case — is a pipeline of
// plain publishes, each on condition of the sequence and the message id
// before it (Nats-Expected-Last-Msg-Id): if a message is refused and
// another writer's message takes its place, the next message of the round
// is refused too, so what commits is always a prefix of the round and
// every request after it is decided again. On an R1 file store an atomic
// batch stages its messages in a file store of its own, fsynced, on the
// server; the pipeline does not, and is about five times faster there with
// nats-server's default lazy fsync — but on a server that fsyncs every
// message (sync_interval: always) it pays an fsync per message and a
// large round commits about twice as fast as a batch. The client cannot
// see the server's setting, so the committer measures both ways on rounds
// of 16 messages or more and takes the faster, trying the other now and
// then (chooser.go); smaller rounds are pipelined. The pipeline is used on
// a one-replica stream only: on a replicated one, with several handles contending, nats-server
// 2.15.2 stopped acknowledging pipelined conditional publishes, so there
// every round of several requests is an atomic batch.
//
// Optimistic rounds do not queue handles: under contention a handle that
// lost a round waits a random moment of a few milliseconds before it
// decides again, so that handles take turns, and gives up (a
// *eventlog.StorageError, nothing written) after 1,000 lost rounds.
//
// # Receipts
//
// A request id's receipt is in the log itself: the first message of the
// request carries the intent hash and the event count, so the receipt
// commits atomically with the events. Every handle indexes the receipts
// of the messages it reads, for Options.ReceiptWindow (default seven
// days, as boltlog's) and at most Options.ReceiptMaxCount, in memory —
// an index rebuilt by Open from the stream, rather than a KV bucket,
// because a bucket written beside the stream could not commit atomically
// with the events (a crash between the two would lose a receipt or keep
// one for events that never committed). The retry of a request therefore
// replays long after the server's two-minute Nats-Msg-Id window, on any
// handle, after a restart or a reconnect. When a publish is not
// acknowledged (a timeout, a lost connection) the request is
// eventlog.ErrCommitUnknown: its retry with the same request id finds the
// receipt once the handle has read the stream, or writes it once. A call
// that failed because the servers did not answer at all — none reachable,
// the connection down, no stream leader within JetStream's request timeout
// — and wrote nothing returns an *eventlog.StorageError wrapping
// ErrUnavailable: the same call may succeed once they answer.
//
// # Reading
//
// Read, Head, Verify and LookupReceipt see everything committed before
// they start: Head asks the stream leader for the last sequence (one
// request; one more to read the hash when another handle wrote it), Read
// and Verify read up to that sequence (message by message for a short
// range, through an ordered consumer otherwise), LookupReceipt first reads
// what other handles wrote. Follow reads through an ordered consumer and
// then waits for new events, resuming after a reconnect.
//
// # Connection
//
// A handle dials every server its URL lists and fails over between them
// (conn.go): it pings its server every Options.PingInterval (2 s) and
// leaves it after Options.MaxPingsOut (2) pings unanswered, or after
// Options.StallReconnect (3) calls in a row over 5 s found no answer
// though pings did (a node cut off from its cluster). A publish waiting
// for its acknowledgement when the connection drops ends at once as
// eventlog.ErrCommitUnknown. With nats.go's defaults a hung server held a
// handle for four to six minutes.
//
// # Caveats
//
// Durability is the server's. On one server (R1) an acknowledged event is
// on that server's disk only, and only once it is fsynced: nats-server
// fsyncs file stores every two minutes by default (sync_interval), so a
// power loss or kernel crash of that machine can lose the events of the
// last interval even though they were acknowledged. Jepsen's analysis of
// NATS 2.12.1 found that with that lazy fsync a three-node cluster whose
// nodes crash together (a power loss) can lose acknowledged writes, and
// that corrupting or losing files on nodes could lose committed ones. For a log that must not lose what it acknowledged run three
// servers (Replicas 3) with sync_interval: always (deploy/). Durability
// reports the stream's replicas, with a warning for one replica that
// nobody said was intended (Options.SingleReplica, IntendSingleReplica);
// Open logs that warning.
//
// The hash chain has no key. Anyone who may publish on cos.<ns>.log.> can
// write into the log: a message that is not the next link of the chain is
// an *eventlog.IntegrityError for Verify and stops every handle's writes
// there, and DenyDelete keeps it from being removed; one that is the next
// link verifies like any event, with whatever content, actor and request
// id it names. A receipt is kept only when the Cos-Intent of its first
// message matches its events (eventlog.MatchIntent), so a forged header
// cannot make a later request with that id answer "replayed" without
// being written. NATS permissions are the boundary: give cos's user alone
// publish permission on those subjects (deploy/nats/permissions.conf);
// cos connects with the credentials EnvUser and EnvPassword, or
// EnvCredsFile, name.
//
// Without a checkpoint (Options.Checkpoint, below) Open reads the whole
// stream, and every handle holds every cos stream's revision and hash in
// memory: fine for the logs cos writes (millions of events), a cost at
// Open for much larger ones.
//
// # Checkpoint
//
// With Options.Checkpoint a handle keeps its model — revisions, counters,
// receipts — in a file of the state folder, with the seq and hash it was
// built to (checkpoint.go): Close writes it (and an Open that read 10,000
// events or more past it), and the next Open loads it, checks that the
// stream's event at that seq has that hash, and reads only what follows. A
// checkpoint that does not match the stream (another stream of the same
// name, a stream that ends before it), is torn or keeps a narrower receipt
// window is ignored and the model is built from seq 1. The file is trusted
// as the state folder is: VerifyHashes checks the chain from it, Verify
// from seq 1.
package natslog
