package generics

type item struct{ name string }

// Name makes item satisfy Named.
func (i item) Name() string { return i.name }

func itoa(n int) string { return "n" }

// Explicit instantiates Map with explicit type arguments.
func Explicit() []string { return Map[int, string]([]int{1}, itoa) }

// Inferred lets the type arguments be inferred.
func Inferred() []string { return Map([]int{1}, itoa) }

// SumBoth calls Sum with inferred and explicit type arguments.
func SumBoth() float64 { return Sum([]float64{1, 2}) + float64(Sum[int](nil)) }

// Constraint passes a type that satisfies Named.
func Constraint() []string {
	it := item{name: "a"}
	return Names([]item{it})
}

// Methods calls methods of two instantiations of Box.
func Methods() int {
	b := &Box[int]{}
	b.Put(1)
	var bs Box[string]
	bs.Swap("x")
	return b.Get()
}

// PairString calls a method on an inferred instantiation.
func PairString() string {
	p := NewPair("a", 1)
	return p.String()
}

// Value takes an instantiation as a value and calls it: references only.
func Value() []string {
	mapper := Map[int, string]
	return mapper(nil, itoa)
}
