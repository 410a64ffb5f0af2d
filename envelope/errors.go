package envelope

import "errors"

var (
	// ErrInvalidOptions is returned by Options.Validate when a budget is
	// negative.
	ErrInvalidOptions = errors.New("envelope: invalid options")

	// ErrNotObject is returned (as the cause of an E_INTERNAL envelope) when
	// a handler's data does not encode to a JSON object; data is always an
	// object.
	ErrNotObject = errors.New("envelope: data does not encode to a JSON object")

	// ErrNoEnvelope is the cause reported by Safe when a handler returned
	// neither an envelope nor an error.
	ErrNoEnvelope = errors.New("envelope: handler returned no envelope")

	// ErrPanic is the cause reported by Safe when a handler panicked; the
	// panic value and stack go to the forensic log only.
	ErrPanic = errors.New("envelope: handler panicked")
)
