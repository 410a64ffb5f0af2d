package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// errTokenRequired is returned by checkHTTPAddr for a non-loopback address
// without a token.
var errTokenRequired = errors.New("a non-loopback --http address requires --token")

// checkHTTPAddr checks --http ADDR before anything is opened: host:port,
// and a token when the host is not a loopback one.
func checkHTTPAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w", addr, err)
	}
	if !isLoopback(host) && token == "" {
		return errTokenRequired
	}
	return nil
}

// serveHTTP serves mux at addr until ctx ends, then shuts down within 5 s.
func serveHTTP(ctx context.Context, addr string, mux *http.ServeMux, logger *slog.Logger) error {
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	logger.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "path", "/mcp")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		return nil
	case err := <-errc:
		return err
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
