package calc

import "testing"

func helper() int { return Add(1, 1) }

func TestAdd(t *testing.T) {
	t.Run("sum", func(t *testing.T) {
		if Add(1, 2) != 3 {
			panic("Add")
		}
	})
	if helper() != 2 {
		panic("helper")
	}
}
