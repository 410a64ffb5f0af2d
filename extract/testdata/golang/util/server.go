// Package util is a fixture.
package util

// Server serves.
type Server struct{ Addr string }

// NewServer returns a server.
func NewServer(addr string) *Server { return &Server{Addr: addr} }

// ListenAndServe listens.
func (s *Server) ListenAndServe() error {
	s.listen()
	return validate(s.Addr)
}
