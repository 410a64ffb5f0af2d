package util

import "strings"

func (s *Server) listen() { _ = strings.TrimSpace(s.Addr) }

// Close closes.
func (s *Server) Close() {}

func validate(addr string) error {
	if addr == "" {
		return nil
	}
	return nil
}
