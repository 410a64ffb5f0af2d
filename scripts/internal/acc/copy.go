package acc

import (
	"io/fs"
	"os"
	"path/filepath"
)

// CopyTree copies the regular files and folders below src to dst,
// writable (a module cache is read-only), leaving out the folders skip
// reports (skip may be nil).
func CopyTree(src, dst string, skip func(dir fs.DirEntry) bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skip != nil && skip(d) {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, 0o644)
		}
		return nil
	})
}
