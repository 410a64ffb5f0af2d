package hub

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// minGzipBytes is the smallest answer worth compressing, in bytes: below
// it the gzip header and the work cost more than they save.
const minGzipBytes = 1024

// acceptsGzip reports whether the request's Accept-Encoding takes gzip
// (or *) with a q above 0.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "*" {
				continue
			}
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
						q = f
					}
				}
			}
			if q > 0 {
				return true
			}
		}
	}
	return false
}

// gzipBytes is b compressed, or nil when that saves nothing.
func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	if buf.Len() >= len(b) {
		return nil
	}
	return buf.Bytes()
}

var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return zw
}}

// compressAPI serves next's /api answers gzip-compressed when the client
// accepts it and the answer is at least minGzipBytes: Content-Encoding
// gzip, Vary: Accept-Encoding, no Content-Length. /api/events, a stream
// flushed event by event, and the page's files (Assets compresses those
// itself) pass through untouched.
func compressAPI(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/api/events" {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Add("Vary", "Accept-Encoding")
		if r.Method == http.MethodHead || !acceptsGzip(r) {
			next.ServeHTTP(w, r)
			return
		}
		gw := &gzipResponse{ResponseWriter: w}
		defer gw.finish()
		next.ServeHTTP(gw, r)
	})
}

// gzipResponse compresses what its handler writes when the first write
// is large enough; the status waits for that first write.
type gzipResponse struct {
	http.ResponseWriter
	status  int
	decided bool
	zw      *gzip.Writer
}

func (g *gzipResponse) WriteHeader(status int) {
	if g.status == 0 {
		g.status = status
	}
}

func (g *gzipResponse) Write(b []byte) (int, error) {
	if !g.decided {
		g.decide(len(b))
	}
	if g.zw != nil {
		return g.zw.Write(b)
	}
	return g.ResponseWriter.Write(b)
}

// decide compresses when the first write of n bytes is large enough and
// the handler set no encoding of its own, then sends the status.
func (g *gzipResponse) decide(n int) {
	g.decided = true
	if g.status == 0 {
		g.status = http.StatusOK
	}
	h := g.Header()
	if n >= minGzipBytes && h.Get("Content-Encoding") == "" && g.status != http.StatusNoContent && g.status != http.StatusNotModified {
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length")
		zw := gzipWriters.Get().(*gzip.Writer)
		zw.Reset(g.ResponseWriter)
		g.zw = zw
	}
	g.ResponseWriter.WriteHeader(g.status)
}

// finish sends a status never written and ends the gzip stream.
func (g *gzipResponse) finish() {
	if !g.decided {
		g.decided = true
		if g.status != 0 {
			g.ResponseWriter.WriteHeader(g.status)
		}
		return
	}
	if g.zw != nil {
		_ = g.zw.Close()
		gzipWriters.Put(g.zw)
		g.zw = nil
	}
}
