package metrics

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidArgument is returned (inside an *ArgumentError) when a
	// metric name, value, unit, tags, aggregation or time window is not
	// legal. The tools layer maps it to E_ARGUMENT.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrNotFound is returned when no point of the metric was ever
	// recorded. The tools layer maps it to E_NOT_FOUND.
	ErrNotFound = errors.New("metric not found")
)

// ArgumentError names the field, what arrived, what is legal and a
// corrected example (docs/envelope.md, validation messages).
type ArgumentError struct {
	Field   string `json:"field"`
	Got     string `json:"got"`
	Legal   string `json:"legal"`
	Example string `json:"example"`
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("%s: got %s; legal: %s; corrected example: %s", e.Field, e.Got, e.Legal, e.Example)
}

// Unwrap makes errors.Is(err, ErrInvalidArgument) true.
func (e *ArgumentError) Unwrap() error { return ErrInvalidArgument }
