package hub

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

// ui is the page: index.html, its ES modules, the stylesheet and the
// vendored graph library. Nothing is built; the files are served as they are.
//
//go:embed ui
var ui embed.FS

// ContentSecurityPolicy is the Content-Security-Policy header of every
// asset: scripts, styles and fetch/EventSource only from the page's own
// origin, no inline script, no frames, no plugins.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// AssetMaxAge is how long a browser may reuse an asset other than
// index.html without asking again (Cache-Control max-age). index.html is
// always revalidated (no-cache); every asset carries a strong ETag, so a
// revalidation costs a 304.
const AssetMaxAge = 5 * time.Minute

// contentTypes are the types the page's files are served with, by
// extension; a name without one (LICENSE, VERSION) is text/plain, one
// with another extension application/octet-stream.
// The system's MIME table is not consulted, so the answer does not depend
// on the machine.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".json": "application/json",
	".png":  "image/png",
	".ico":  "image/x-icon",
	".txt":  "text/plain; charset=utf-8",
}

// asset is one embedded file, read once, and its gzip form when that is
// smaller (a text type), with an ETag of its own.
type asset struct {
	body        []byte
	etag        string
	contentType string
	gz          []byte
	gzETag      string
}

// assetTable maps a URL path ("/index.html", "/vendor/cytoscape/cytoscape.min.js")
// to its file. Directories are not in it, so they are never listed.
func assetTable() map[string]*asset {
	root, err := fs.Sub(ui, "ui")
	if err != nil {
		panic("hub: embedded ui missing: " + err.Error()) // the embed directive guarantees it
	}
	table := map[string]*asset{}
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ext := strings.ToLower(path.Ext(p))
		ct, ok := contentTypes[ext]
		switch {
		case ok:
		case ext == "":
			ct = contentTypes[".txt"]
		default:
			ct = "application/octet-stream"
		}
		a := &asset{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`, contentType: ct}
		if compressible(ct) {
			if a.gz = gzipBytes(body); a.gz != nil {
				a.gzETag = `"` + hex.EncodeToString(sum[:16]) + `-gz"`
			}
		}
		table["/"+p] = a
		return nil
	})
	if err != nil {
		panic("hub: reading embedded ui: " + err.Error())
	}
	return table
}

// compressible reports whether files of Content-Type ct are worth gzip.
func compressible(ct string) bool {
	return strings.HasPrefix(ct, "text/") || strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "image/svg+xml")
}

// Assets returns the handler of the page, meant to be mounted at "/": GET
// or HEAD of "/" answers index.html, of "/<file>" the embedded file with its
// Content-Type, an ETag, the Content-Security-Policy and a Cache-Control
// (no-cache for index.html, AssetMaxAge for the rest). A text file goes
// gzip-compressed to a client that accepts it (Content-Encoding gzip,
// its own ETag); every text file says Vary: Accept-Encoding. A path naming no
// file — a directory included — is 404; any other method is 405 with
// "Allow: GET, HEAD".
func Assets() http.Handler {
	table := assetTable()
	maxAge := "public, max-age=" + strconv.Itoa(int(AssetMaxAge/time.Second))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: the page is read with GET", http.StatusMethodNotAllowed)
			return
		}
		p := r.URL.Path
		if p == "/" || p == "" {
			p = "/index.html"
		}
		a, ok := table[p]
		if !ok {
			http.Error(w, "not found: "+clip(r.URL.Path, 200), http.StatusNotFound)
			return
		}
		h.Set("Content-Type", a.contentType)
		body, etag := a.body, a.etag
		if a.gz != nil {
			h.Add("Vary", "Accept-Encoding")
			if acceptsGzip(r) {
				body, etag = a.gz, a.gzETag
				h.Set("Content-Encoding", "gzip")
			}
		}
		h.Set("ETag", etag)
		if p == "/index.html" {
			h.Set("Cache-Control", "no-cache")
		} else {
			h.Set("Cache-Control", maxAge)
		}
		// ServeContent answers If-None-Match (304), Range and HEAD.
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	})
}
