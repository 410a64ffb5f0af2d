package search

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrClosed is returned by every Index method called after Close.
	ErrClosed = errors.New("search index is closed")

	// ErrNoSlot is returned by OpenIndex when every slot folder under
	// Options.Dir (up to Options.MaxSlots) is locked by another live process.
	ErrNoSlot = errors.New("no free search index slot")

	// ErrSeqBackwards is returned by Apply when its seq is lower than the
	// index's checkpoint: the caller is replaying events the index already
	// holds out of order.
	ErrSeqBackwards = errors.New("seq is below the index checkpoint")

	// ErrInvalidOptions is returned (wrapped) by Options.Validate and
	// ResolverOptions.Validate when a field is out of range.
	ErrInvalidOptions = errors.New("invalid options")

	// ErrAmbiguous is returned (as *AmbiguousError) by the Resolver when more
	// than one node fits a raw string and none clearly wins. Tools map it to
	// E_AMBIGUOUS (docs/errors.md).
	ErrAmbiguous = errors.New("ambiguous")

	// ErrNotFound is returned (as *NotFoundError) by the Resolver when no node
	// fits a raw string, or, in strict mode, when no node fits it directly or
	// by path prefix. Tools map it to E_NOT_FOUND (docs/errors.md).
	ErrNotFound = errors.New("not found")
)

// AmbiguousError lists the nodes a raw string could mean, best first.
type AmbiguousError struct {
	// Query is the raw string as given to Resolve.
	Query string
	// Candidates are ranked by score, highest first; ties by uid.
	Candidates []Candidate
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q is ambiguous: %d candidates (%s)", e.Query, len(e.Candidates), uidList(e.Candidates, 5))
}

// Unwrap returns ErrAmbiguous.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// NotFoundError says that a raw string resolved to no node and offers the
// nearest nodes as suggestions. A suggestion is never used as the answer.
type NotFoundError struct {
	// Query is the raw string as given to Resolve.
	Query string
	// Strict is true when the lookup was strict (direct and path prefix only).
	Strict bool
	// Suggestions are the best index matches, best first; may be empty.
	Suggestions []Candidate
}

func (e *NotFoundError) Error() string {
	mode := ""
	if e.Strict {
		mode = " (strict: uid or repo-relative path required)"
	}
	if len(e.Suggestions) == 0 {
		return fmt.Sprintf("no node matches %q%s", e.Query, mode)
	}
	return fmt.Sprintf("no node matches %q%s; did you mean %s", e.Query, mode, uidList(e.Suggestions, 3))
}

// Unwrap returns ErrNotFound.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

func uidList(cs []Candidate, max int) string {
	var b strings.Builder
	for i, c := range cs {
		if i == max {
			fmt.Fprintf(&b, ", … %d more", len(cs)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.UID)
	}
	return b.String()
}
