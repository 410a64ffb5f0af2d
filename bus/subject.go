package bus

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
)

// Message headers set on every published event (docs/architecture.md,
// processes and the bus).
const (
	HeaderSeq    = "Cos-Seq"
	HeaderStream = "Cos-Stream"
	// HeaderMsgID is NATS's de-duplication header; it carries Event.ID.
	HeaderMsgID = nats.MsgIdHdr
)

// subjectPrefix is the first token of every cos subject.
const subjectPrefix = "cos"

// EventsSubject returns the subject of events whose type matches pattern in
// namespace ns: "cos.<ns>.events.<pattern>". pattern is an event type
// ("task.updated") or a NATS pattern over types ("task.>", ">").
func EventsSubject(ns, pattern string) string {
	return subjectPrefix + "." + ns + ".events." + pattern
}

// PresenceSubject returns the heartbeat subject of namespace ns.
func PresenceSubject(ns string) string {
	return subjectPrefix + "." + ns + ".presence"
}

// checkEventType reports whether t can be the tail of a published subject:
// dot-separated, non-empty tokens without spaces or wildcards.
func checkEventType(t string) error {
	if t == "" {
		return fmt.Errorf("%w: empty event type", ErrInvalidSubject)
	}
	for tok := range strings.SplitSeq(t, ".") {
		if tok == "" || tok == "*" || tok == ">" || strings.ContainsAny(tok, " \t\r\n*>") {
			return fmt.Errorf("%w: event type %q", ErrInvalidSubject, t)
		}
	}
	return nil
}

// checkSubject reports whether s is a well-formed subscription subject:
// non-empty tokens, '>' only as the last token, no white space.
func checkSubject(s string) error {
	if s == "" {
		return fmt.Errorf("%w: empty subject", ErrInvalidSubject)
	}
	toks := strings.Split(s, ".")
	for i, tok := range toks {
		switch {
		case tok == "" || strings.ContainsAny(tok, " \t\r\n"):
			return fmt.Errorf("%w: %q", ErrInvalidSubject, s)
		case tok == ">" && i != len(toks)-1:
			return fmt.Errorf("%w: %q: '>' must be the last token", ErrInvalidSubject, s)
		case tok != "*" && tok != ">" && strings.ContainsAny(tok, "*>"):
			return fmt.Errorf("%w: %q", ErrInvalidSubject, s)
		}
	}
	return nil
}

// encodeEvent builds the message for ev in namespace ns.
func encodeEvent(ns string, ev eventlog.Event) (*nats.Msg, error) {
	if err := checkEventType(ev.Type); err != nil {
		return nil, err
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode event %d: %w", ev.Seq, err)
	}
	msg := nats.NewMsg(EventsSubject(ns, ev.Type))
	msg.Header.Set(HeaderSeq, strconv.FormatUint(ev.Seq, 10))
	msg.Header.Set(HeaderStream, ev.Stream)
	msg.Header.Set(HeaderMsgID, ev.ID)
	msg.Data = body
	return msg, nil
}

// decodeEvent reads the event carried by a message body.
func decodeEvent(body []byte) (eventlog.Event, error) {
	var ev eventlog.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return eventlog.Event{}, fmt.Errorf("decode event: %w", err)
	}
	return ev, nil
}
