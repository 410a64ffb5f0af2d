// Package urfave3 declares a urfave/cli v3 command.
package urfave3

import (
	"context"

	"github.com/urfave/cli/v3"
)

func greet(ctx context.Context, c *cli.Command) error { return nil }

// Command returns the root command.
func Command() *cli.Command {
	return &cli.Command{
		Name:     "hello",
		Commands: []*cli.Command{{Name: "greet", Action: greet}},
	}
}
