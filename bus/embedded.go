package bus

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"

	"github.com/nats-io/nats-server/v2/server"
)

// randomPort asks nats-server for any free port (its RANDOM_PORT).
const randomPort = server.RANDOM_PORT

// embeddedHost is the only interface the embedded server listens on.
const embeddedHost = "127.0.0.1"

// startServer starts an in-process nats-server on 127.0.0.1:port (port may be
// randomPort) named name, and returns it once it accepts connections.
//
// It never ends the process: the server gets no signal handlers (NoSigs) and
// a logger whose Fatalf only logs; Start reports a bind failure through
// Fatalf and returns, and the outcome is read from the listener. A port
// already taken is an error wrapping ErrServerStart.
func startServer(name string, port int, maxPayload int32, logger *slog.Logger) (*server.Server, error) {
	opts := &server.Options{
		ServerName:      name,
		Host:            embeddedHost,
		Port:            port,
		NoSigs:          true,
		NoLog:           true,
		NoSystemAccount: true,
		MaxPayload:      maxPayload,
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrServerStart, err)
	}
	srv.SetLogger(serverLogger{logger.With("component", "nats-server")}, false, false)

	// Start binds the client listener before it returns; a bind failure
	// goes to Fatalf (which only logs here) and leaves Addr nil.
	srv.Start()
	if srv.Addr() == nil {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("%w: cannot listen on %s", ErrServerStart, net.JoinHostPort(embeddedHost, strconv.Itoa(port)))
	}
	return srv, nil
}

// serverURL returns the client URL of a started server.
func serverURL(srv *server.Server) string {
	return "nats://" + srv.Addr().String()
}

// stopServer shuts srv down and waits until its goroutines have ended.
func stopServer(srv *server.Server) {
	srv.Shutdown()
	srv.WaitForShutdown()
}

// serverLogger routes nats-server's log to slog. Fatalf logs at error level
// and returns: the server's own logger would call os.Exit, which must never
// happen inside a cos process.
type serverLogger struct{ l *slog.Logger }

var _ server.Logger = serverLogger{}

func (s serverLogger) Noticef(format string, v ...any) { s.l.Debug(fmt.Sprintf(format, v...)) }
func (s serverLogger) Warnf(format string, v ...any)   { s.l.Warn(fmt.Sprintf(format, v...)) }
func (s serverLogger) Fatalf(format string, v ...any)  { s.l.Error(fmt.Sprintf(format, v...)) }
func (s serverLogger) Errorf(format string, v ...any)  { s.l.Error(fmt.Sprintf(format, v...)) }
func (s serverLogger) Debugf(format string, v ...any)  { s.l.Debug(fmt.Sprintf(format, v...)) }
func (s serverLogger) Tracef(format string, v ...any)  { s.l.Debug(fmt.Sprintf(format, v...)) }
