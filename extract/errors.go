package extract

import "errors"

// ErrRoot is returned by Run when the root does not exist or is not a
// directory.
var ErrRoot = errors.New("extract: root is not a readable directory")

// ErrOptions is returned by Options.Validate (wrapped with the offending
// field) when an option is out of range.
var ErrOptions = errors.New("extract: invalid options")

// ErrEmit is returned by Run (wrapping the callback's error) when the emit
// callback fails; the index stops and the cache is not advanced for the
// files of the failed batch.
var ErrEmit = errors.New("extract: emit failed")
