package envelope

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestAsError_CancelIsNotTimeout: a call its caller cancelled is
// E_CANCELLED, a deadline of the server's stays E_TIMEOUT; both transient.
func TestAsError_CancelIsNotTimeout(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	timed, stop := context.WithTimeout(context.Background(), time.Nanosecond)
	defer stop()
	<-timed.Done()
	for _, tt := range []struct {
		name string
		err  error
		want Code
	}{
		{"client cancel", fmt.Errorf("index: %w", cancelled.Err()), CodeCancelled},
		{"server deadline", fmt.Errorf("index: %w", timed.Err()), CodeTimeout},
	} {
		e := AsError(tt.err)
		if e.Code != tt.want || e.Category != CategoryTransient || !e.Retryable {
			t.Errorf("%s: %s %s retryable=%v; want %s transient retryable", tt.name, e.Code, e.Category, e.Retryable, tt.want)
		}
	}
}
