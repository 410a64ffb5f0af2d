package evidence

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cos-dev/cos/eventlog"
)

// Record kinds: an output of a role, or one of the bundle's accumulators.
const (
	KindOutput          = "output"
	KindBacktrack       = "backtrack"
	KindDiscovery       = "discovery"
	KindDegradedFormula = "degraded_formula"
)

// Kinds lists the legal record kinds.
var Kinds = []string{KindOutput, KindBacktrack, KindDiscovery, KindDegradedFormula}

// Event types of an evidence:<session> stream, one per kind. Data is Record.
const (
	TypeOutputRecorded    = "evidence.output_recorded"
	TypeBacktrackRecorded = "evidence.backtrack_recorded"
	TypeDiscoveryRecorded = "evidence.discovery_recorded"
	TypeFormulaDegraded   = "evidence.formula_degraded"
)

var typeOfKind = map[string]string{
	KindOutput:          TypeOutputRecorded,
	KindBacktrack:       TypeBacktrackRecorded,
	KindDiscovery:       TypeDiscoveryRecorded,
	KindDegradedFormula: TypeFormulaDegraded,
}

var kindOfType = map[string]string{
	TypeOutputRecorded:    KindOutput,
	TypeBacktrackRecorded: KindBacktrack,
	TypeDiscoveryRecorded: KindDiscovery,
	TypeFormulaDegraded:   KindDegradedFormula,
}

// Record is the payload of every evidence event.
type Record struct {
	// Role is set for KindOutput only.
	Role string `json:"role,omitempty"`
	// Output is a JSON object, canonical (sorted keys) once validated.
	Output json.RawMessage `json:"output"`
	// Task, when the record was made for a task, points at its code as
	// read just before the record (TaskRef). Omitted otherwise, so a
	// record without one encodes as it always did.
	Task *TaskRef `json:"task,omitempty"`
}

// Prepare validates one record of cos_supervise_record_output for session
// against the registry and returns what to append: the stream
// "evidence:<session>" and the event (its type and canonical data). kind ""
// means KindOutput. Errors: ErrInvalidSession, ErrUnknownKind,
// ErrUnknownRole, or an *OutputError (errors.Is ErrInvalidOutput) listing
// every problem with a corrected example.
func (r *Registry) Prepare(session, kind, role string, output json.RawMessage) (string, eventlog.Payload, error) {
	return r.PrepareFor(session, kind, role, output, nil)
}

// PrepareFor is Prepare for a record that points at a task's code: ref (nil
// for none) is carried in the record as read, after Prepare's checks.
func (r *Registry) PrepareFor(session, kind, role string, output json.RawMessage, ref *TaskRef) (string, eventlog.Payload, error) {
	if err := ValidateSession(session); err != nil {
		return "", eventlog.Payload{}, err
	}
	if kind == "" {
		kind = KindOutput
	}
	if kind != KindOutput && role != "" {
		return "", eventlog.Payload{}, fmt.Errorf("%w: role %q given with kind %q; a role belongs to kind %q only", ErrUnknownKind, role, kind, KindOutput)
	}
	className, err := r.ClassOf(kind, role)
	if err != nil {
		return "", eventlog.Payload{}, err
	}
	// An output sent as a JSON string holding an object is accepted
	// (docs/envelope.md, validation messages).
	var inner string
	if json.Unmarshal(output, &inner) == nil && strings.HasPrefix(strings.TrimSpace(inner), "{") {
		output = json.RawMessage(inner)
	}
	canon, err := r.Classes[className].check(kind, role, className, output)
	if err != nil {
		return "", eventlog.Payload{}, err
	}
	data, err := json.Marshal(Record{Role: role, Output: canon, Task: ref})
	if err != nil {
		return "", eventlog.Payload{}, fmt.Errorf("encode record: %w", err)
	}
	return Stream(session), eventlog.Payload{Type: typeOfKind[kind], Data: data}, nil
}
