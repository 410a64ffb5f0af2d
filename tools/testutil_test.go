package tools

import (
	"encoding/json"

	"github.com/cos-dev/cos/eventlog"
)

func graphReq(typ, data string) eventlog.AppendRequest {
	return eventlog.AppendRequest{Stream: "graph", Events: []eventlog.Payload{{Type: typ, Data: json.RawMessage(data)}}}
}
