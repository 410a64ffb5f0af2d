package p

type Shape interface{ Area() int }

type Sq struct{ n int }

func (s Sq) Area() int { return s.n * s.n }

type Unused struct{}

func (Unused) Area() int { return 0 }

func Total(ss []Shape) int {
	t := 0
	for _, s := range ss {
		t += s.Area()
	}
	return t
}

func helper() int { return 1 }

func dead() { sink = helper() }

func rec(n int) int {
	if n == 0 {
		return 0
	}
	return rec(n - 1)
}

func pingA(n int) { pingB(n) }
func pingB(n int) { pingA(n) }

var table = map[string]func(){"x": viaValue}

func viaValue() {}

func init() { _ = table }

func Generic[T any](x T) T { return x }

// Exported is part of the library's API.
func Exported() { useExt() }

// sink keeps values the fixture computes (not printed: nothing here writes to stdout).
var sink any
