package scip

import "errors"

var (
	// ErrNotIndex is returned by Load and Open when a file is not a SCIP
	// index: it does not decode as one, or it holds neither metadata nor
	// documents.
	ErrNotIndex = errors.New("not a SCIP index")
	// ErrIndexerMissing is returned by Find when an indexer is neither in
	// the folder named nor on PATH.
	ErrIndexerMissing = errors.New("SCIP indexer not found")
	// ErrNoToolsFolder is returned by Find when the folder it is asked to
	// look in does not exist or is not a folder.
	ErrNoToolsFolder = errors.New("SCIP indexers' folder not found")
	// ErrIndexerFailed is returned by RunIndexer when the indexer exits
	// with an error, is killed, or writes no index.
	ErrIndexerFailed = errors.New("SCIP indexer failed")
	// ErrIndexerTimeout is returned by RunIndexer when the indexer did not
	// finish within its timeout (it is killed, with its children).
	ErrIndexerTimeout = errors.New("SCIP indexer timed out")
)
