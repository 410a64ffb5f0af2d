package eventlog

// Committed is what a log holds of one committed request, as a receipt's
// intent is checked against it: the cos stream its events went to, that
// stream's revision and the hash of its last event before them, and its
// events (type and data as stored).
type Committed struct {
	Stream string
	// Before is the stream's revision before the request's first event
	// (0 for a new stream); BeforeHash the hash of its last event then
	// ("" for a new stream).
	Before     uint64
	BeforeHash string
	Events     []Payload
}

// MatchIntent reports whether intent is the canonical intent hash
// (Prepared.Intent) of a request that, committed, wrote exactly c: one
// naming c.Stream, with or without an expected revision (c.Before) and an
// expected hash (c.BeforeHash); or, for a new stream whose name ends in
// three or more digits, one allocating it from a prefix before those
// digits (prefix is then that prefix; "" for a request naming its
// stream). The data is compared canonically (doc.go, "Request ids"), so
// a retry whose JSON orders its keys differently still matches.
//
// A replay may trust a receipt only when its intent matches the events it
// points at: where the intent is recorded beside the events and not under
// the hash chain (a NATS message header), anyone who may publish on the
// log can write a receipt with a forged intent, and such a receipt binds
// its request id to events no request with that intent wrote. The error is
// an *InvalidEventError for data that is not JSON.
func MatchIntent(intent [32]byte, c Committed) (prefix string, ok bool, err error) {
	canon, err := canonicalEvents(c.Events)
	if err != nil {
		return "", false, err
	}
	exps := []ExpectedRevision{{}, AtRevision(c.Before)}
	hashes := []string{""}
	if c.BeforeHash != "" {
		hashes = append(hashes, c.BeforeHash)
	}
	for _, exp := range exps {
		for _, h := range hashes {
			if canonicalIntent(c.Stream, "", exp, h, canon) == intent {
				return "", true, nil
			}
		}
	}
	if c.Before != 0 {
		return "", false, nil
	}
	for _, p := range AllocationPrefixes(c.Stream) {
		for _, exp := range exps {
			if canonicalIntent("", p, exp, "", canon) == intent {
				return p, true, nil
			}
		}
	}
	return "", false, nil
}

// AllocationPrefixes returns every prefix an allocation could have named
// stream from (an allocated name is the prefix and a number of at least
// three digits, "%s%03d"), longest first: "task:TASK-" for "task:TASK-007",
// "run1" and "run" for "run1001"; none for a name that does not end in
// three digits.
func AllocationPrefixes(stream string) []string {
	i := len(stream)
	for i > 0 && stream[i-1] >= '0' && stream[i-1] <= '9' {
		i--
	}
	var out []string
	for j := len(stream) - 3; j >= i && j > 0; j-- {
		digits := stream[j:]
		if (len(digits) > 3 && digits[0] == '0') || digits == "000" { // %03d of a number from 1
			continue
		}
		out = append(out, stream[:j])
	}
	return out
}
