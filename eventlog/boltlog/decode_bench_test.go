package boltlog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

func BenchmarkDecodeRecord(b *testing.B) {
	ev := eventlog.Event{Seq: 42, ID: "01J0000000000000000000000", Stream: "graph", Revision: 7, Type: "graph.file_extracted",
		Actor: eventlog.Actor{PID: 1, Host: "h"}, PrevHash: eventlog.ZeroHash,
		Data: json.RawMessage(`{"path":"a/b.go","nodes":[` + strings.Repeat(`{"uid":"code:function:a/b.go::F","kind":"function","label":"F","path":"a/b.go","line":3},`, 40) + `{}]}`)}
	ev.Hash = eventlog.EventHash(&ev)
	rec, _ := encodeRecord(&ev)
	b.SetBytes(int64(len(rec)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := DecodeRecord(rec); err != nil {
			b.Fatal(err)
		}
	}
}
