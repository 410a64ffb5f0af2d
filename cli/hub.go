package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cos-dev/cos/hub"
	"github.com/cos-dev/cos/internal/httpauth"
	"github.com/cos-dev/cos/state"
)

// defaultHubAddr is cos hub's --http default: loopback, a free port.
const defaultHubAddr = "127.0.0.1:0"

// hubLong is cos hub --help.
const hubLong = `Serve the Hub alone: the web page people use to watch and steer the agents — the task
board, the code graph, the live event feed, evidence and health — and its JSON API under
/api/. No MCP is served and stdin is not read; the server runs until SIGINT or SIGTERM.

The address of the page is printed on stderr ("Hub: http://127.0.0.1:PORT/"); open it in a
browser. cos never opens a browser itself. Without --http a free loopback port is used.

One Hub serves a state folder: a second cos hub on the same folder exits with an error
naming the address and process of the first (a cos serve --http that started first counts).

A non-loopback --http address needs --token (or $COS_HTTP_TOKEN); the page then asks for
the token once. A write whose Origin header is neither the server's own nor one given with
--allow-origin is refused.`

func (a *app) hubCommand() *cobra.Command {
	var (
		f       serverFlags
		addr    string
		token   string
		origins []string
		debug   bool
		idle    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "hub",
		Short: "Serve the Hub (the web page and its /api) alone, without MCP",
		Long:  hubLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token == "" {
				token = os.Getenv("COS_HTTP_TOKEN")
			}
			logger := a.serverLogger(debug)
			if err := checkHTTPAddr(addr, token); err != nil {
				return usageError("%v", err)
			}
			if _, err := httpauth.NewOrigins(origins); err != nil {
				return usageError("--allow-origin %v", err)
			}
			if idle <= 0 {
				return usageError("--session-idle %v: want a positive duration such as 12h", idle)
			}
			if err := state.EnsureDir(a.stateDir); err != nil {
				return &exitError{code: ExitError, err: fmt.Errorf("state folder %s: %w", a.stateDir, err)}
			}
			lock, err := hub.TakeLock(a.stateDir)
			switch {
			case errors.Is(err, hub.ErrRunning):
				return &exitError{code: ExitError, err: err}
			case err != nil: // a read-only folder: serve, but nobody can be told where
				logger.Warn("the Hub lock cannot be taken; a second cos hub on this folder will not be refused", "err", err)
			default:
				defer func() { _ = lock.Release() }()
			}
			ln, err := listenHTTP(addr)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			defer func() { _ = ln.Close() }()
			o, err := a.openTools(cmd.Context(), f, logger, nil)
			if err != nil {
				return failure(err)
			}
			defer func() { _ = o.close(context.Background()) }()
			h, err := hub.New(o.r, o.st, hub.Options{Token: token, AllowedOrigins: origins, SessionIdle: idle, Logger: logger})
			if err != nil {
				return usageError("%v", err)
			}
			if lock != nil {
				if err := lock.Record(ln.Addr().String()); err != nil {
					logger.Warn("where the Hub runs is not recorded; a second cos hub cannot name it", "err", err)
				}
			}
			fmt.Fprintf(a.io.Err, "Hub: %s\n", hubURL(ln.Addr()))
			return serveHTTP(cmd.Context(), ln, h.Handler(), logger, h.Close)
		},
	}
	f.add(cmd, "auto")
	cmd.Flags().StringVar(&addr, "http", defaultHubAddr, "serve the Hub at http://ADDR/, ADDR as HOST:PORT (port 0: any free port)")
	cmd.Flags().StringVar(&token, "token", "", "token the Hub's API requires (default $COS_HTTP_TOKEN); the page asks for it once")
	cmd.Flags().StringArrayVar(&origins, "allow-origin", nil, "browser origin (scheme://host[:port]) allowed to call the API besides the server's own (repeatable)")
	cmd.Flags().DurationVar(&idle, "session-idle", hub.DefaultSessionIdle, "with --token: a login session unused this long ends and the page asks for the token again")
	cmd.Flags().BoolVar(&debug, "debug", false, "debug logs on stderr")
	return cmd
}

// hubURL is the address of the page served on addr (a wildcard address
// as 127.0.0.1, which a browser here opens).
func hubURL(addr net.Addr) string {
	return hub.PageURL(addr.String())
}

// mountHub serves the Hub over o at / and /api/ of mux (beside /mcp) and
// takes the state folder's Hub lock when no other process holds it, so
// that a cos hub started later names this one. It returns what stops the
// Hub's event streams and what releases the lock.
func mountHub(mux *http.ServeMux, o *opened, stateDir string, ln net.Listener, opts hub.Options, logger *slog.Logger) (closeHub func(), release func(), err error) {
	h, err := hub.New(o.r, o.st, opts)
	if err != nil {
		return nil, nil, err
	}
	mux.Handle("/", h.Handler())
	release = func() {}
	lock, lerr := hub.TakeLock(stateDir)
	switch {
	case lerr == nil:
		if err := lock.Record(ln.Addr().String()); err != nil {
			logger.Warn("where the Hub runs is not recorded", "err", err)
		}
		release = func() { _ = lock.Release() }
	case errors.Is(lerr, hub.ErrRunning):
		logger.Info("another process's Hub is the one this state folder names; this one is served too", "other", lerr.Error())
	default:
		logger.Warn("the Hub lock cannot be taken", "err", lerr)
	}
	logger.Info("serving the Hub", "url", hubURL(ln.Addr()))
	return h.Close, release, nil
}
