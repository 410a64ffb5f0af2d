package mcp

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/cos-dev/cos/tools"
)

// Progress notifications: a tools/call whose _meta carries a progressToken
// gets notifications/progress {progressToken, progress, total, message}
// while its tool runs, at least every ProgressInterval, with progress
// strictly increasing and none after the call's answer. Without a token,
// none are sent.
const (
	// ProgressInterval is the longest time between two progress
	// notifications of a running call.
	ProgressInterval = 500 * time.Millisecond
	// progressTick is how often the sender looks at the tool's progress;
	// progressHeartbeat how long it lets pass without a notification when
	// the tool's count did not move.
	progressTick      = 100 * time.Millisecond
	progressHeartbeat = 400 * time.Millisecond
)

// stdioOutKey carries the stdio session's writer in a call's context:
// progress is written there directly, in order before the call's answer
// (mcp-go's notification queue is written by another goroutine and could
// let a notification overtake the answer).
type stdioOutKey struct{}

// progressSender turns a tool's reports (tools.Progress) into
// notifications/progress for one call.
type progressSender struct {
	token any
	send  func(params map[string]any)

	// mu guards latest.
	mu     sync.Mutex
	latest tools.Progress

	stop chan struct{}
	done chan struct{}
}

// maxProgressToken bounds a string progress token, in bytes: each
// notification echoes it.
const maxProgressToken = 256

// validProgressToken reports whether tok is a progress token MCP allows (a
// string or an integer) of a size worth echoing. Any other token (an
// object, an array, a fraction, a huge string) gets no notifications: the
// call itself runs as usual.
func validProgressToken(tok any) bool {
	switch t := tok.(type) {
	case string:
		return t != "" && len(t) <= maxProgressToken
	case float64:
		return t == math.Trunc(t) && math.Abs(t) <= 1<<53
	case int, int64, int32, uint64, json.Number:
		return true
	}
	return false
}

// startProgress returns ctx carrying a tools.ProgressFunc when the request
// asked for progress, and the function that stops the notifications (it
// returns once the last one is written). Without a token it returns ctx
// unchanged and a no-op.
func startProgress(ctx context.Context, srv *mcpserver.MCPServer, req mcp.CallToolRequest) (context.Context, func()) {
	if req.Params.Meta == nil || !validProgressToken(req.Params.Meta.ProgressToken) {
		return ctx, func() {}
	}
	p := &progressSender{token: req.Params.Meta.ProgressToken, stop: make(chan struct{}), done: make(chan struct{})}
	if out, ok := ctx.Value(stdioOutKey{}).(io.Writer); ok {
		p.send = func(params map[string]any) {
			b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": string(mcp.MethodNotificationProgress), "params": params})
			if err == nil {
				_, _ = out.Write(append(b, '\n'))
			}
		}
	} else {
		p.send = func(params map[string]any) {
			_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
		}
	}
	go p.run()
	return tools.WithProgress(ctx, p.report), func() {
		close(p.stop)
		<-p.done
	}
}

// report is the call's tools.ProgressFunc: it only stores the value.
func (p *progressSender) report(pr tools.Progress) {
	p.mu.Lock()
	p.latest = pr
	p.mu.Unlock()
}

// run sends a notification when the tool's Done moved, and otherwise
// every progressHeartbeat: then progress is Done plus a fraction k/(k+1)
// that grows with each heartbeat k, so it increases while staying below
// Done+1 (progress is a number, not a count, in MCP).
func (p *progressSender) run() {
	defer close(p.done)
	t := time.NewTicker(progressTick)
	defer t.Stop()
	var (
		sent     bool
		lastDone int
		beats    int
		lastAt   time.Time
	)
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			p.mu.Lock()
			pr := p.latest
			p.mu.Unlock()
			var v float64
			switch {
			case !sent || pr.Done > lastDone:
				lastDone, beats = pr.Done, 0
				v = float64(pr.Done)
			case now.Sub(lastAt) >= progressHeartbeat:
				beats++
				v = float64(lastDone) + float64(beats)/float64(beats+1)
			default:
				continue
			}
			params := map[string]any{"progressToken": p.token, "progress": v}
			if pr.Total > 0 && v <= float64(pr.Total) {
				params["total"] = pr.Total
			}
			if pr.Message != "" {
				params["message"] = pr.Message
			}
			select {
			case <-p.stop: // the answer is on its way: send nothing more
				return
			default:
			}
			p.send(params)
			sent, lastAt = true, now
		}
	}
}
