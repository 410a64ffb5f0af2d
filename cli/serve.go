package cli

import (
	"context"
	"log/slog"
	"net/http"
	"os"

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
}

func (f *serverFlags) add(cmd *cobra.Command, defaultNATS string) {
	cmd.Flags().StringVar(&f.nats, "nats", defaultNATS, `NATS: "auto" (find or host an embedded server), "off", or a nats:// URL`)
	cmd.Flags().StringVar(&f.namespace, "namespace", "", "subject namespace (default: derived from the state folder)")
	cmd.Flags().StringArrayVar(&f.roots, "root", nil, "folder cos_graph_index may index (repeatable; default: the working directory)")
	cmd.Flags().StringArrayVar(&f.exclude, "exclude", nil, "folder name indexing skips, on top of node_modules, vendor, .venv, __pycache__, dist, build, .cos (repeatable)")
	cmd.Flags().IntVar(&f.budget, "budget-chars", 0, "envelope token budget in characters (default 32000)")
}

// stderrLogger logs text lines to stderr: stdout is the MCP stream.
func (a *app) stderrLogger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(a.io.Err, &slog.HandlerOptions{Level: level}))
}

func (a *app) serveCommand() *cobra.Command {
	var (
		f     serverFlags
		addr  string
		token string
		debug bool
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the cos_* tools over MCP on stdio (and streamable HTTP with --http)",
		Long: "Serve the cos_* tools over MCP. stdout carries only MCP messages; logs go to stderr. " +
			"With --http ADDR the tools are also served over streamable HTTP at /mcp; a non-loopback address needs --token.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token == "" {
				token = os.Getenv("COS_HTTP_TOKEN")
			}
			level := slog.LevelInfo
			if debug {
				level = slog.LevelDebug
			}
			logger := a.stderrLogger(level)
			ctx := cmd.Context()
			if addr != "" {
				if err := checkHTTPAddr(addr, token); err != nil {
					return usageError("%v", err)
				}
			}
			o, err := a.openTools(ctx, f, logger, nil)
			if err != nil {
				return failure(err)
			}
			defer func() { _ = o.close(context.Background()) }()
			srv := mcp.New(o.r, mcp.Options{Version: Version, Budget: f.budgetOptions(), Logger: logger})
			errc := make(chan error, 2)
			if addr != "" {
				mux := http.NewServeMux()
				srv.Mount(mux, token)
				go func() { errc <- serveHTTP(ctx, addr, mux, logger) }()
			}
			go func() { errc <- srv.ServeStdio(ctx, a.io.In, a.io.Out) }()
			err = <-errc
			if err != nil {
				return failure(err)
			}
			return nil
		},
	}
	f.add(cmd, "auto")
	cmd.Flags().StringVar(&addr, "http", "", "also serve streamable HTTP at ADDR/mcp, e.g. 127.0.0.1:7777")
	cmd.Flags().StringVar(&token, "token", "", "bearer token required on HTTP (default $COS_HTTP_TOKEN)")
	cmd.Flags().BoolVar(&debug, "debug", false, "debug logs on stderr")
	return cmd
}
