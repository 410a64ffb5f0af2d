package eventlog

import "time"

// Limits every backend keeps, and the defaults of the ones it may tune.
const (
	// DefaultMaxEventBytes is the largest data payload of one event, as
	// compact JSON: 1 MiB.
	DefaultMaxEventBytes = 1 << 20
	// DefaultReceiptMaxCount is how many request-id receipts are kept.
	DefaultReceiptMaxCount = 100_000
	// DefaultReceiptMaxAge is how long a request-id receipt is kept.
	DefaultReceiptMaxAge = 7 * 24 * time.Hour
	// MaxRequestIDLen is the longest request id, in characters.
	MaxRequestIDLen = 128
	// MaxStreamLen is the longest stream name or stream prefix, in bytes.
	MaxStreamLen = 256
	// MaxTypeLen is the longest event type, in bytes.
	MaxTypeLen = 128
)

// Limits are the tunable bounds Prepare checks a request against. The zero
// value takes every default.
type Limits struct {
	// MaxEventBytes is the largest compact JSON data of one event, in
	// bytes. Zero or less means DefaultMaxEventBytes.
	MaxEventBytes int
}

func (l Limits) maxEventBytes() int {
	if l.MaxEventBytes <= 0 {
		return DefaultMaxEventBytes
	}
	return l.MaxEventBytes
}
