package cli

import (
	"errors"
	"log/slog"
	"os"

	"github.com/cos-dev/cos/tools"
	"github.com/spf13/cobra"
)

// serverFlags are the flags shared by commands that open a tools.Server.
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
	cmd.Flags().IntVar(&f.budget, "budget-chars", 0, "envelope token budget in characters (default 32000, seed 000)")
}

func (a *app) serverOptions(f serverFlags, logger *slog.Logger) tools.Options {
	o := tools.Options{
		StateDir:  a.stateDir,
		Roots:     f.roots,
		Exclude:   f.exclude,
		NATS:      f.nats,
		Namespace: f.namespace,
		Version:   Version,
		Logger:    logger,
		SCIPTools: os.Getenv(SCIPToolsEnv),
	}
	o.Budget.BudgetChars = f.budget
	return o
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
			srv, err := tools.Open(ctx, a.serverOptions(f, logger))
			if err != nil {
				return failure(err)
			}
			defer srv.Close()
			errc := make(chan error, 2)
			if addr != "" {
				go func() { errc <- srv.ServeHTTP(ctx, Version, tools.HTTPOptions{Addr: addr, Token: token}) }()
			}
			go func() { errc <- srv.ServeStdio(ctx, Version, a.io.In, a.io.Out) }()
			err = <-errc
			if errors.Is(err, tools.ErrTokenRequired) {
				return usageError("%v", err)
			}
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
