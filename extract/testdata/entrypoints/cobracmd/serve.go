package cobracmd

import "github.com/spf13/cobra"

var serveCmd = &cobra.Command{
	Use: "serve [flags]",
	Run: func(cmd *cobra.Command, args []string) {},
}

var dbCmd = &cobra.Command{Use: "db"}

func migrate(cmd *cobra.Command, args []string) {}

func init() {
	rootCmd.AddCommand(serveCmd, dbCmd)
	dbCmd.AddCommand(&cobra.Command{Use: "migrate", Run: migrate})
}
