// Package urfave2 declares a urfave/cli v2 app.
package urfave2

import "github.com/urfave/cli/v2"

func add(c *cli.Context) error { return nil }

// App returns the app.
func App() *cli.App {
	return &cli.App{
		Name:   "todo",
		Action: func(c *cli.Context) error { return nil },
		Commands: []*cli.Command{
			{Name: "add", Action: add},
			{Name: "tpl", Subcommands: []*cli.Command{{Name: "list", Action: add}}},
		},
	}
}
