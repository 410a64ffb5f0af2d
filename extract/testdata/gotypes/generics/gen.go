// Package generics calls generic functions and methods of generic types;
// every edge goes to the generic origin, never to an instantiation.
package generics

// Number is a constraint without methods.
type Number interface {
	~int | ~float64
}

// Named is a constraint with a method.
type Named interface {
	Name() string
}

// Map calls f, a func-typed parameter: no calls edge.
func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// Sum adds numbers.
func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

// Names calls a method through a type parameter: the constraint's method.
func Names[T Named](xs []T) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.Name())
	}
	return out
}

// Box is a generic type.
type Box[T any] struct{ v T }

// Put has a pointer receiver.
func (b *Box[T]) Put(v T) { b.v = v }

// Get has a pointer receiver.
func (b *Box[T]) Get() T { return b.v }

// Swap calls the other methods of the generic type.
func (b *Box[T]) Swap(v T) T {
	old := b.Get()
	b.Put(v)
	return old
}

// Pair has two type parameters.
type Pair[K comparable, V any] struct {
	Key K
	Val V
}

// NewPair builds an instantiation of Pair.
func NewPair[K comparable, V any](k K, v V) Pair[K, V] {
	return Pair[K, V]{Key: k, Val: v}
}

// String has a value receiver.
func (p Pair[K, V]) String() string { return "pair" }
