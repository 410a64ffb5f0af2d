package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/hub"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/mcp"
	"github.com/spf13/cobra"
)

// serverFlags are the flags shared by commands that open the state folder
// and run tools.
type serverFlags struct {
	nats      string
	namespace string
	roots     []string
	exclude   []string
	budget    int
	// maxFileSize is --max-file-size, in bytes.
	maxFileSize int64
}

func (f *serverFlags) add(cmd *cobra.Command, defaultNATS string) {
	cmd.Flags().StringVar(&f.nats, "nats", defaultNATS, `NATS: "auto" (find or host an embedded server), "off", or a nats:// URL (it may carry its own user:password@ or token@)`)
	cmd.Flags().StringVar(&f.namespace, "namespace", "", "subject namespace (default: derived from the state folder)")
	cmd.Flags().StringArrayVar(&f.roots, "root", nil, "folder cos_graph_index may index (repeatable; default: the working directory)")
	cmd.Flags().StringArrayVar(&f.exclude, "exclude", nil, "folder name indexing skips, on top of node_modules, vendor, .venv, __pycache__, dist, build, .cos (repeatable)")
	cmd.Flags().Int64Var(&f.maxFileSize, "max-file-size", extract.DefaultMaxFileSize, "largest file indexing reads, in bytes; "+
		"a larger file is skipped (reason too_large) and named in the index summary")
	cmd.Flags().IntVar(&f.budget, "budget-chars", 0, "envelope token budget in characters, ≥ 0 (0: the default, 32000)")
	// The flags are checked once parsed, before RunE opens anything: a bad
	// budget must not get as far as running a tool (cos call would write
	// and then fail, inviting a duplicating retry).
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if err := f.check(); err != nil {
			return err
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// check validates the flags that need no state folder: a usage error
// (exit 2) naming the flag, its value and what is legal.
func (f *serverFlags) check() error {
	if f.maxFileSize <= 0 {
		return usageError("--max-file-size %d: give a positive number of bytes (default %d, 2 MiB)", f.maxFileSize, extract.DefaultMaxFileSize)
	}
	if err := f.budgetOptions().Validate(); err != nil {
		return usageError("--budget-chars %d: want 0 (the default, %d) or a positive number of characters",
			f.budget, envelope.DefaultBudgetChars)
	}
	return nil
}

// stderrLogger logs text lines to stderr: stdout is the MCP stream.
func (a *app) stderrLogger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(a.io.Err, &slog.HandlerOptions{Level: level}))
}

// serverLogger is the stderr logger of a server command: info, or debug
// with --debug.
func (a *app) serverLogger(debug bool) *slog.Logger {
	if debug {
		return a.stderrLogger(slog.LevelDebug)
	}
	return a.stderrLogger(slog.LevelInfo)
}

// stdioMode is how cos serve uses stdin and stdout.
type stdioMode int

const (
	// stdioOff: stdin is not read.
	stdioOff stdioMode = iota
	// stdioSession: MCP is spoken on stdio; the end of stdin ends that
	// session only, HTTP goes on.
	stdioSession
	// stdioOwner: MCP is spoken on stdio; the end of stdin ends the server.
	stdioOwner
)

// serveLong is cos serve --help: the transports and when the server ends.
const serveLong = `Serve the cos_* tools over MCP. stdout carries only MCP messages; logs go to stderr.

Transports and when the server ends:
  cos serve                  MCP on stdin/stdout. The server ends when stdin closes,
                             or on SIGINT/SIGTERM.
  cos serve --http ADDR      MCP over streamable HTTP at http://ADDR/mcp, and the Hub (the web
                             page, its API under /api/) at http://ADDR/, until SIGINT/SIGTERM.
                             When stdin is a pipe or a socket (an MCP client started the
                             server) MCP is spoken on stdio too, and the end of stdin ends
                             only that stdio session. When stdin is a terminal, /dev/null or
                             a file (nohup, systemd, docker without -i) it is not read.
  cos serve --http ADDR --stdio
                             both, whatever stdin is; the end of stdin ends the server.
  cos serve --http ADDR --stdio=false
                             HTTP only; stdin is never read.

On SIGINT or SIGTERM, stdio calls in flight finish or are cancelled (each still gets its
answer), HTTP requests get up to 5 seconds to finish, and the state folder is closed
before the process exits (0).
A second signal ends the process at once.

HTTP: a non-loopback ADDR needs --token (or $COS_HTTP_TOKEN); clients then send
"Authorization: Bearer TOKEN" (the Hub's page asks for it once). A request whose Origin
header is neither the server's own origin nor one given with --allow-origin is refused
with 403. A message (an HTTP body, a
stdio line) may be at most 64 MiB.`

func (a *app) serveCommand() *cobra.Command {
	var (
		f       serverFlags
		addr    string
		token   string
		origins []string
		stdio   bool
		debug   bool
		watch   bool
		index   bool
		idle    time.Duration
		profile string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the cos_* tools over MCP on stdio, or streamable HTTP with --http",
		Long:  serveLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token == "" {
				token = os.Getenv("COS_HTTP_TOKEN")
			}
			logger := a.serverLogger(debug)
			var asked *bool
			if cmd.Flags().Changed("stdio") {
				asked = &stdio
			}
			httpOpts := mcp.HTTPOptions{Token: token, AllowedOrigins: origins, SessionIdleTTL: idle}
			if idle <= 0 && cmd.Flags().Changed("session-idle") {
				return usageError("--session-idle %v: want a positive duration such as 10m", idle)
			}
			if err := checkServeFlags(addr, httpOpts, asked); err != nil {
				return usageError("%v", err)
			}
			if !cmd.Flags().Changed("tools") {
				profile = os.Getenv("COS_TOOLS")
			} else if profile == "" {
				return usageError("--tools is empty: want one of %s", strings.Join(mcp.Profiles, ", "))
			}
			profile, err := mcp.ParseProfile(profile)
			if err != nil {
				return usageError("--tools (or COS_TOOLS): %v", err)
			}
			var ln net.Listener
			if addr != "" { // before the state folder is opened: a busy port fails at once
				l, err := listenHTTP(addr)
				if err != nil {
					return &exitError{code: ExitError, err: err}
				}
				ln = l
				defer func() { _ = ln.Close() }()
			}
			mode := chooseStdio(addr, asked, a.io.In)
			o, err := a.openTools(cmd.Context(), f, logger, nil)
			if err != nil {
				return failure(err)
			}
			defer func() { _ = o.close(context.Background()) }()
			// The watcher and the start index stop before the state folder
			// closes.
			wctx, stopWatch := context.WithCancel(cmd.Context())
			var watching sync.WaitGroup
			defer func() { stopWatch(); watching.Wait() }()
			if o.wt != nil {
				// The worktree's files are watched into this process's
				// graph; the main tree is the main tree's server's to index.
				watch, index = false, false
				watching.Go(func() { o.wt.Run(wctx) })
			}
			if watch && o.st.Writable() {
				watching.Go(func() {
					if err := o.ix.Watch(wctx, indexing.WatchOptions{}); err != nil {
						logger.Warn("the indexed tree is not watched; run cos index after edits", "err", err)
					}
				})
			}
			if index {
				watching.Go(func() { o.ix.IndexAtStart(wctx) })
			}
			if o.st.Writable() && o.st.Dir() != "" { // HTTP sessions outlive a restart
				httpOpts.SessionDir = filepath.Join(o.st.Dir(), mcp.SessionFolder)
			}
			srv := mcp.New(o.r, mcp.Options{Version: Version, Budget: f.budgetOptions(), Logger: logger, Tools: profile})
			var web *webHub
			if ln != nil {
				web = &webHub{o: o, dir: a.stateDir, opts: hub.Options{Token: token, AllowedOrigins: origins, Logger: logger}}
			}
			return a.serve(cmd.Context(), srv, ln, httpOpts, web, mode, logger)
		},
	}
	f.add(cmd, "auto")
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP at http://ADDR/mcp, ADDR as HOST:PORT, e.g. 127.0.0.1:7777")
	cmd.Flags().StringVar(&token, "token", "", "bearer token required on HTTP (default $COS_HTTP_TOKEN)")
	cmd.Flags().StringArrayVar(&origins, "allow-origin", nil, "browser origin (scheme://host[:port]) allowed to call the HTTP endpoint besides the server's own (repeatable)")
	cmd.Flags().BoolVar(&stdio, "stdio", false, "with --http: --stdio serves stdio too and ends the server when stdin closes; --stdio=false never reads stdin (default: stdio only when stdin is a pipe or socket)")
	cmd.Flags().DurationVar(&idle, "session-idle", mcp.DefaultSessionIdleTTL, "with --http: end an HTTP session silent this long (no request; a listening GET stream is pinged) and drop its subscriptions")
	cmd.Flags().StringVar(&profile, "tools", "", "tools listed: core (code questions and task work), default, or all (default $COS_TOOLS, else default); "+
		"the others stay callable by name and the instructions name them")
	cmd.Flags().BoolVar(&debug, "debug", false, "debug logs on stderr")
	cmd.Flags().BoolVar(&watch, "watch", true, "keep the graph current with the indexed folder: re-index changed files within a second "+
		"of the last write (one server per state folder watches; another takes over if it stops); --watch=false never watches")
	cmd.Flags().BoolVar(&index, "index", true, "at start, index in the background each --root the graph holds no index of "+
		"(without --root: the working directory, when it is in a git work tree and nothing was ever indexed); "+
		"reads answer meanwhile and say meta.index.state \"indexing\"; --index=false never does")
	return cmd
}

// checkServeFlags checks the flags of cos serve before anything is opened.
func checkServeFlags(addr string, o mcp.HTTPOptions, asked *bool) error {
	if addr == "" {
		switch {
		case asked != nil && !*asked:
			return errors.New("--stdio=false leaves nothing to serve: add --http ADDR")
		case len(o.AllowedOrigins) > 0:
			return errors.New("--allow-origin applies to HTTP: add --http ADDR")
		}
		return nil
	}
	if err := checkHTTPAddr(addr, o.Token); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return fmt.Errorf("--allow-origin %w", err)
	}
	return nil
}

// chooseStdio applies the rule cos serve --help states. asked is --stdio
// when given, else nil.
func chooseStdio(addr string, asked *bool, in io.Reader) stdioMode {
	switch {
	case addr == "":
		return stdioOwner
	case asked != nil && *asked:
		return stdioOwner
	case asked != nil:
		return stdioOff
	case isStream(in):
		return stdioSession
	}
	return stdioOff
}

// isStream reports whether in is a pipe or a socket — what an MCP client
// that starts the server hands it — rather than a terminal, /dev/null or a
// regular file. A reader that is not a file (a test's) counts as a stream.
func isStream(in io.Reader) bool {
	f, ok := in.(*os.File)
	if !ok {
		return true
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

// webHub is what cos serve --http serves the Hub from.
type webHub struct {
	o    *opened
	dir  string
	opts hub.Options
}

// serve runs the transports until ctx ends, stdin ends in stdioOwner mode,
// or HTTP fails; it returns once both have stopped, so the caller closes the
// state folder after the last call.
func (a *app) serve(ctx context.Context, srv *mcp.Server, ln net.Listener, httpOpts mcp.HTTPOptions, web *webHub, mode stdioMode, logger *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		httpErr  error
		stdioErr error
	)
	if ln != nil {
		mux := http.NewServeMux()
		if err := srv.Mount(mux, httpOpts); err != nil {
			return usageError("--allow-origin %v", err)
		}
		logger.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "path", mcp.Path)
		var onShutdown []func()
		if web != nil { // the Hub at / and /api/ beside /mcp
			closeHub, release, err := mountHub(mux, web.o, web.dir, ln, web.opts, logger)
			if err != nil {
				return usageError("%v", err)
			}
			defer release()
			defer closeHub() // when serving fails rather than stops
			onShutdown = append(onShutdown, closeHub)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if httpErr = serveHTTP(ctx, ln, mux, logger, onShutdown...); httpErr != nil {
				cancel()
			}
		}()
		if mode == stdioOff {
			logger.Info("stdin is not read (not a pipe or socket, or --stdio=false); the server runs until SIGINT or SIGTERM")
		}
	}
	if mode != stdioOff {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stdioErr = srv.ServeStdio(ctx, a.io.In, a.io.Out)
			switch {
			case mode == stdioOwner:
				cancel()
			case ctx.Err() == nil:
				if stdioErr != nil {
					logger.Error("stdio session failed; HTTP goes on", "err", stdioErr)
					stdioErr = nil
				}
				logger.Info("stdin closed: the stdio session ended; HTTP goes on until SIGINT or SIGTERM")
			}
		}()
	}
	wg.Wait()
	switch {
	case httpErr != nil:
		return &exitError{code: ExitError, err: httpErr}
	case stdioErr != nil:
		return &exitError{code: ExitError, err: fmt.Errorf("stdio: %w", stdioErr)}
	}
	return nil
}
