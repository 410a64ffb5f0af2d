// Package history indexes the event log by what each event touched, so
// that the history of one task, stream, graph node or file is read without
// a scan of the log (the cos_history tool).
//
// # Basics
//
// An Index is fed every committed event in seq order (Apply, as a follower
// of the projections' tailer) and keeps, per event, a compact entry — seq,
// commit time, type, stream, actor, request id and a one-line summary of
// what changed — and lists of entry positions per stream, per task id, per
// node uid and per file path. Query walks one such list (or every entry)
// from the newest, so the first page of a task with 1,000 events costs a
// few microseconds whatever the length of the log.
//
// The summary is computed as the event is applied, against what the index
// remembers of the entity: a task's fields (a patch reads "status: todo →
// in_progress"), and for each (path, extractor) the node uids and edge
// hashes of its last extraction (an extraction reads "+2 nodes (Run,
// helper), -1 node (old), 1 changed; +3 -1 edges").
//
// # Which events touch what
//
//   - a stream: every event appended to it;
//   - a task id: the events of its stream "task:<id>", the
//     task.relations_updated events that name it, and the evidence records
//     whose task reference names it;
//   - a uid: graph events that add, remove or change the node (an
//     extraction counts a node changed when its kind, label, extractor,
//     metadata or line span differs; a move alone is not a change), upsert
//     or delete it, or add or delete an edge from or to it;
//   - a path: every graph.file_extracted and graph.file_removed of the
//     path, and graph.nodes_upserted of nodes in it.
//
// # Caveats
//
// The index is not a projection: it is in no snapshot and no state hash,
// and a process builds it from the log the first time it is asked
// (state.State.History). Its memory grows with the log: about 90 bytes
// per event plus its summary (at most MaxSummary bytes) and request id,
// 4 bytes per list it is in, and for the file diffs about 40 bytes per
// graph node plus 8 per edge of the last extraction of each file.
package history
