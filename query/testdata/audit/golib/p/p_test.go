package p

import "testing"

func TestTotal(t *testing.T) {
	if Total([]Shape{Sq{2}}) != 4 {
		t.Fatal()
	}
	_ = Generic(3)
}
