// Package cobracmd declares a cobra command tree.
package cobracmd

import "github.com/spf13/cobra"

var rootCmd = &cobra.Command{
	Use:   "tool",
	Short: "the tool",
	RunE:  runRoot,
}

func runRoot(cmd *cobra.Command, args []string) error { return nil }

// Execute runs the root command.
func Execute() error { return rootCmd.Execute() }
