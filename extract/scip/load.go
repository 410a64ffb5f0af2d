package scip

import (
	"fmt"
	"os"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"
)

// Load reads and decodes a SCIP index file (the protobuf written by
// scip-python, scip-typescript and other SCIP indexers, usually
// index.scip).
//
// Errors: the file cannot be read, or it is not a SCIP index (wrapping
// ErrNotIndex): it does not decode, or it holds neither metadata nor
// documents (an empty file decodes as an empty index).
func Load(path string) (*scippb.Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read SCIP index: %w", err)
	}
	var idx scippb.Index
	if err := proto.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrNotIndex, err)
	}
	if idx.GetMetadata() == nil && len(idx.GetDocuments()) == 0 {
		return nil, fmt.Errorf("%s: %w: it holds neither metadata nor documents", path, ErrNotIndex)
	}
	return &idx, nil
}
