package envelope_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/cos-dev/cos/envelope"
)

func ExampleOK() {
	type task struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	env := envelope.OK(task{ID: "TASK-0007", Status: "done"}, envelope.Meta{Layer: envelope.LayerTasks, LogSeq: 42}, envelope.Options{})
	fmt.Println(string(env.JSON()))
	// Output:
	// {"data":{"id":"TASK-0007","meta":{"layer":"tasks","log_seq":42,"tokens_estimated":32,"truncated":false},"status":"done"},"ok":true}
}

func ExampleFail() {
	err := envelope.Errorf(envelope.CodeArgument, "limit must be in [1, 500], got %d", 0).
		WithDetails(map[string]any{"field": "limit"})
	fmt.Println(string(envelope.Fail(err).JSON()))
	// Output:
	// {"error":{"category":"validation","code":"E_ARGUMENT","details":{"field":"limit"},"message":"limit must be in [1, 500], got 0","retryable":false},"ok":false}
}

func ExampleSafe() {
	log := slog.New(slog.DiscardHandler) // a server passes OpenForensicLog's logger
	env := envelope.Safe(context.Background(), envelope.CallInfo{Tool: "cos_example", RequestID: "7", ArgBytes: 19}, log,
		func(ctx context.Context) (envelope.Envelope, error) {
			panic("boom: a bug in the handler")
		})
	fmt.Println(env.OK(), env.Err().Code, env.Err().Message)
	// Output:
	// false E_INTERNAL internal error; the server log (.mcp.log) has the details
}
