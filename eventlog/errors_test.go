package eventlog

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestStaleRevisionError_Error(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	for _, c := range []struct {
		err  StaleRevisionError
		want string
	}{
		{StaleRevisionError{Stream: "s", Expected: NoStream(), Current: 1, CurrentHash: hash}, `create target already exists: stream "s" is at revision 1`},
		{StaleRevisionError{Stream: "s", Expected: AtRevision(5), Current: 1, CurrentHash: hash}, `stream "s" is at revision 1, expected 5`},
		{StaleRevisionError{Stream: "s", ExpectedHash: hash, Current: 1, CurrentHash: strings.Repeat("cd", 32)}, `stream "s" hash is ` + strings.Repeat("cd", 32) + `, expected ` + hash},
		{StaleRevisionError{Stream: "s", ExpectedHash: hash}, `stream "s" hash is none (no such stream), expected ` + hash},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
		if !errors.Is(&c.err, ErrStaleRevision) {
			t.Errorf("%q does not match ErrStaleRevision", c.want)
		}
	}
}

// Every concrete error matches its sentinel, and those that wrap a cause
// match it too.
func TestErrors_Unwrap(t *testing.T) {
	for _, c := range []struct {
		err  error
		want []error
	}{
		{&RequestReuseError{RequestID: "r", Original: Receipt{Stream: "s", FirstSeq: 3}}, []error{ErrRequestReuse}},
		{&InvalidEventError{Field: "type", Reason: "bad"}, []error{ErrInvalidEvent}},
		{ValidateRequestID(""), []error{ErrRequestID}},
		{&IntegrityError{Seq: 4, Reason: "bad"}, []error{ErrIntegrity}},
		{&CommitUnknownError{Err: io.ErrShortWrite}, []error{ErrCommitUnknown, io.ErrShortWrite}},
		{&StorageError{Op: "open", Path: "events.db", Err: io.ErrUnexpectedEOF}, []error{io.ErrUnexpectedEOF}},
	} {
		for _, w := range c.want {
			if !errors.Is(c.err, w) {
				t.Errorf("%T %q does not match %v", c.err, c.err, w)
			}
		}
	}
	if errors.Is(ValidateRequestID(""), ErrInvalidEvent) {
		t.Error("a request id error matches ErrInvalidEvent; it must match ErrRequestID only")
	}
}
