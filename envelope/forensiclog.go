package envelope

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// ForensicLogName is the forensic log's file name inside the state folder
// (<state folder>/.mcp.log — note the leading dot; docs/storage.md).
const ForensicLogName = ".mcp.log"

// OpenForensicLog opens <stateDir>/.mcp.log for appending, creating the
// folder and the file (mode 0600) if needed, and returns a logger writing
// one JSON object per line to it, and the file to close when the server
// stops. Several server processes append to the same file: each record is
// one write(2) on an O_APPEND descriptor, so lines never interleave.
func OpenForensicLog(stateDir string) (*slog.Logger, io.Closer, error) {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("open forensic log: %w", err)
	}
	path := filepath.Join(stateDir, ForensicLogName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open forensic log: %w", err)
	}
	h := slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})
	return slog.New(h), f, nil
}
