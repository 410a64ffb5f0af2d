package natslog_test

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// hangProxy forwards TCP connections to a target address until Hang; from
// then on it holds every byte, both ways, and accepts new connections
// without answering: to a client, a server that hangs with its sockets
// open — a paused process, or a partition that drops packets — which a
// stopped server (its sockets closed) is not.
type hangProxy struct {
	ln     net.Listener
	target string
	hung   atomic.Bool
	// forwarding counts the connections forwarded and still open.
	forwarding atomic.Int32
	done       chan struct{}
	wg         sync.WaitGroup

	// mu guards conns: every connection, closed at cleanup.
	mu    sync.Mutex
	conns []net.Conn
}

// startHangProxy listens on a random loopback port for target and stops
// at cleanup.
func startHangProxy(tb testing.TB, target string) *hangProxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &hangProxy{ln: ln, target: target, done: make(chan struct{})}
	p.wg.Go(p.accept)
	tb.Cleanup(p.close)
	return p
}

// URL is the proxy's client URL.
func (p *hangProxy) URL() string { return "nats://" + p.ln.Addr().String() }

// Hang stops forwarding.
func (p *hangProxy) Hang() { p.hung.Store(true) }

// Forwarding returns the number of connections forwarded and still open.
func (p *hangProxy) Forwarding() int { return int(p.forwarding.Load()) }

// track keeps c to close at cleanup, or closes it now when the proxy has
// stopped.
func (p *hangProxy) track(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		_ = c.Close()
	default:
		p.conns = append(p.conns, c)
	}
}

func (p *hangProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.track(c)
		if p.hung.Load() {
			continue // held open, never answered
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.track(s)
		p.forwarding.Add(1)
		var once sync.Once
		closed := func() { once.Do(func() { p.forwarding.Add(-1) }) }
		p.wg.Go(func() { p.pipe(c, s); closed() })
		p.wg.Go(func() { p.pipe(s, c); closed() })
	}
}

// pipe copies src to dst until either closes, or holds what it reads once
// the proxy hangs.
func (p *hangProxy) pipe(src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if p.hung.Load() {
			<-p.done
			return
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			_ = dst.Close()
			return
		}
	}
}

func (p *hangProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	close(p.done)
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
