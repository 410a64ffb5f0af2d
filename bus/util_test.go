package bus

import (
	"io"
	"log/slog"
	"net"
	"strconv"
	"testing"
)

// listen holds a loopback TCP port for the test and returns its address.
// The listener accepts connections (the kernel does) but never answers.
func listen(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().String()
}

func splitPort(t testing.TB, addr string) (string, int) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return h, n
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func uintString(n uint64) string { return strconv.FormatUint(n, 10) }
