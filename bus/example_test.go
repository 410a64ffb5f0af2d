package bus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
)

// A tailer subscribes to the feed, then catches up from the log once, and
// again after every reconnect; each message is a doorbell and a carrier.
func Example() {
	dir, err := os.MkdirTemp("", "cos-bus-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	b, err := bus.Open(context.Background(), bus.Options{
		StateDir: dir,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		panic(err)
	}
	defer b.Close()

	got := make(chan eventlog.Event, 1)
	unsub, err := b.Subscribe(bus.EventsSubject(b.Namespace(), "task.>"), func(ev eventlog.Event) { got <- ev })
	if err != nil {
		panic(err)
	}
	defer unsub()
	b.OnReconnect(func() { /* catch up from the log */ })

	err = b.Publish(context.Background(), eventlog.Event{
		Seq: 1, ID: "01JEXAMPLE0000000000000000", Stream: "task:TASK-001",
		Revision: 1, Type: "task.created", Data: json.RawMessage(`{}`),
	})
	if err != nil {
		panic(err)
	}
	ev := <-got
	fmt.Println(ev.Seq, ev.Type, ev.Stream, b.State().Hosting)
	// Output: 1 task.created task:TASK-001 true
}
