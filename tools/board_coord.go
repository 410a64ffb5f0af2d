package tools

import (
	"sync"

	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/query"
)

// The board's coordination (overlap ids, change counts) is a function of
// the state at one log position, so it is kept per position: the column
// calls of one Hub page load, all at one seq, compute it once. A past
// position (`at`) is another key.

// boardCoordKept is how many positions' coordination the cache keeps: the
// live head and one past position being looked at.
const boardCoordKept = 2

// boardCoordKey names a log position: its seq and, when known, its hash.
type boardCoordKey struct {
	seq  uint64
	hash string
}

// boardCoords keeps the query.BoardCoord of the last boardCoordKept
// positions read, most recently used last.
type boardCoords struct {
	mu   sync.Mutex
	keys []boardCoordKey
	vals []*query.BoardCoord
}

// at returns the BoardCoord of position p, a new empty one when it is not
// kept (dropping the least recently used beyond boardCoordKept). Callers
// asking at once for one position share one BoardCoord, which computes
// each part once.
func (bc *boardCoords) at(p projections.Position) *query.BoardCoord {
	k := boardCoordKey{seq: p.Seq, hash: p.Hash}
	bc.mu.Lock()
	defer bc.mu.Unlock()
	for i, key := range bc.keys {
		if key == k {
			v := bc.vals[i]
			bc.keys = append(append(bc.keys[:i:i], bc.keys[i+1:]...), k)
			bc.vals = append(append(bc.vals[:i:i], bc.vals[i+1:]...), v)
			return v
		}
	}
	v := query.NewBoardCoord()
	bc.keys = append(bc.keys, k)
	bc.vals = append(bc.vals, v)
	if n := len(bc.keys); n > boardCoordKept {
		bc.keys = bc.keys[n-boardCoordKept:]
		bc.vals = bc.vals[n-boardCoordKept:]
	}
	return v
}
