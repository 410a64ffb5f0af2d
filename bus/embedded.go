package bus

import (
	"crypto/subtle"
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
// randomPort) named name, which accepts only clients that present creds, and
// returns it once it accepts connections.
//
// It never ends the process: the server gets no signal handlers (NoSigs) and
// a logger whose Fatalf only logs; Start reports a bind failure through
// Fatalf and returns, and the outcome is read from the listener. A port
// already taken is an error wrapping ErrServerStart.
func startServer(name string, port int, maxPayload int32, creds credentials, logger *slog.Logger) (*server.Server, error) {
	if !creds.valid() {
		return nil, fmt.Errorf("%w: no credentials", ErrServerStart)
	}
	opts := &server.Options{
		ServerName:      name,
		Host:            embeddedHost,
		Port:            port,
		NoSigs:          true,
		NoLog:           true,
		NoSystemAccount: true,
		MaxPayload:      maxPayload,
		// A custom check rather than Username/Password: the same
		// comparison, in constant time, without the server's warning about
		// a plain-text password in its configuration.
		CustomClientAuthentication: passwordCheck(creds),
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

// passwordCheck is the embedded server's authentication: a client gets in
// only with the user name and password of creds, compared in constant time.
type passwordCheck credentials

var _ server.Authentication = passwordCheck{}

// Check implements server.Authentication.
func (p passwordCheck) Check(c server.ClientAuthentication) bool {
	o := c.GetOpts()
	if o == nil {
		return false
	}
	user := subtle.ConstantTimeCompare([]byte(o.Username), []byte(p.User))
	pass := subtle.ConstantTimeCompare([]byte(o.Password), []byte(p.Password))
	return user&pass == 1
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
