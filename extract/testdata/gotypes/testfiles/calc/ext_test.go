package calc_test

import (
	"testing"

	"example.com/testfiles/calc"
)

func TestExt(t *testing.T) {
	if calc.Add(1, calc.Internal()) != 43 {
		panic("Add")
	}
}
