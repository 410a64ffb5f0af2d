//go:build tools

// Package deps pins the third-party modules cos builds on, so that every
// package can import them without racing on go.mod.
package deps

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/blevesearch/bleve/v2"
	_ "github.com/gofrs/flock"
	_ "github.com/mark3labs/mcp-go/client"
	_ "github.com/mark3labs/mcp-go/mcp"
	_ "github.com/mark3labs/mcp-go/server"
	_ "github.com/nats-io/nats-server/v2/server"
	_ "github.com/nats-io/nats.go"
	_ "github.com/oklog/ulid/v2"
	_ "github.com/sabhiram/go-gitignore"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "github.com/tree-sitter/go-tree-sitter"
	_ "github.com/tree-sitter/tree-sitter-go/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-python/bindings/go"
	_ "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
	_ "github.com/yuin/goldmark"
	_ "go.etcd.io/bbolt"
	_ "go.uber.org/goleak"
	_ "golang.org/x/sync/errgroup"
	_ "gopkg.in/yaml.v3"
)
