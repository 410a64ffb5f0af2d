package p

import (
	"fmt"
	"testing"
)

func TestTotal(t *testing.T) {
	if Total([]Shape{Sq{2}}) != 4 {
		t.Fatal()
	}
	_ = Generic(3)
}

func ExampleTotal() {
	fmt.Println(Total(nil))
	// Output: 0
}

func ExampleExported() {
	Exported()
}
