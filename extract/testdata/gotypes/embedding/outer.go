package embedding

import "sync"

// Mid embeds Base by value and Logger by pointer.
type Mid struct {
	Base
	*Logger
}

// Top embeds Mid: Base's methods are two levels down.
type Top struct {
	Mid
}

// PtrTop embeds *Base: SetID is in its value method set.
type PtrTop struct {
	*Base
}

// Shadow declares its own Hello over Base's.
type Shadow struct {
	Base
}

// Hello shadows Base.Hello and calls it.
func (s Shadow) Hello() string { return "shadow " + s.Base.Hello() }

// Locked embeds an outside type.
type Locked struct {
	sync.Mutex
	n int
}

// Decorated embeds an interface.
type Decorated struct {
	Greeter
}
