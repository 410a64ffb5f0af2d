package search

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/gofrs/flock"
)

// A slot is one index folder, <Dir>/slot-N, owned by whoever holds an
// exclusive flock on <Dir>/slot-N.lock. The lock file sits beside the folder,
// not in it, so a corrupt index can be wiped without dropping the lock. The
// kernel drops the lock when its holder exits, so a slot left by a dead
// process is free again, checkpoint and all. Lock files are never removed:
// removing one while another process is about to lock it would let two
// processes own the same slot.

func slotDir(dir string, n int) string  { return filepath.Join(dir, fmt.Sprintf("slot-%d", n)) }
func slotLock(dir string, n int) string { return filepath.Join(dir, fmt.Sprintf("slot-%d.lock", n)) }

// claimSlot locks the lowest free slot in 0..max-1 without waiting and
// returns its number and lock. It returns ErrNoSlot when all are held.
func claimSlot(ctx context.Context, dir string, max int) (int, *flock.Flock, error) {
	for n := 0; n < max; n++ {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		l := flock.New(slotLock(dir, n))
		ok, err := l.TryLock()
		if err != nil {
			return 0, nil, fmt.Errorf("lock search slot %d: %w", n, err)
		}
		if ok {
			return n, l, nil
		}
	}
	return 0, nil, fmt.Errorf("%w: all %d slots under %s are held", ErrNoSlot, max, dir)
}
