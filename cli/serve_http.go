package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// errTokenRequired is returned by checkHTTPAddr for a non-loopback address
// without a token.
var errTokenRequired = errors.New("a non-loopback --http address requires --token")

// httpShutdownGrace is how long HTTP requests in flight get to finish once
// the server is asked to stop.
const httpShutdownGrace = 5 * time.Second

// httpIdleTimeout is how long an HTTP keep-alive connection may wait for
// its next request.
const httpIdleTimeout = 2 * time.Minute

// checkHTTPAddr checks --http ADDR before anything is opened: HOST:PORT
// with a port from 0 to 65535, and a token when the host is not a loopback
// one.
func checkHTTPAddr(addr, token string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w; want HOST:PORT, e.g. 127.0.0.1:7777", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--http %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if !isLoopback(host) && token == "" {
		return errTokenRequired
	}
	return nil
}

// listenHTTP listens on addr; its error names the address and the cause.
func listenHTTP(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: cannot listen: %s", addr, listenCause(err))
	}
	return ln, nil
}

// listenCause says why net.Listen failed, in words a user can act on.
func listenCause(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return "the address is already in use (another process listens on that port: pick another port or stop that process)"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "the host is not an address of this machine (cannot assign requested address)"
	case errors.Is(err, syscall.EACCES):
		return "permission denied (ports below 1024 need privileges)"
	case errors.As(err, &dns):
		return fmt.Sprintf("host %q cannot be resolved: %s", dns.Name, dns.Err)
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

// serveHTTP serves handler on ln until ctx ends, then calls onShutdown
// (which ends long-lived responses such as the Hub's event streams) and
// gives requests in flight httpShutdownGrace to finish. It returns an
// error only when serving fails.
func serveHTTP(ctx context.Context, ln net.Listener, handler http.Handler, logger *slog.Logger, onShutdown ...func()) error {
	// No ReadTimeout or WriteTimeout: MCP's GET stream and /api/events are
	// long-lived responses (each write has its own deadline there). An idle
	// keep-alive connection is closed after httpIdleTimeout so that clients
	// that open connections and go quiet cannot hold them forever.
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: httpIdleTimeout}
	for _, f := range onShutdown {
		hs.RegisterOnShutdown(f)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), httpShutdownGrace)
		defer cancel()
		_ = hs.Shutdown(sctx)
		// Serve returns http.ErrServerClosed once Shutdown begins.
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("http: serving ended with an error during shutdown", "err", err)
		}
		return nil
	case err := <-errc:
		return fmt.Errorf("--http %s: %w", ln.Addr(), err)
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
