// Package embedding promotes methods through struct embedding, pointer
// embedding, two levels of it, an outside type and an interface.
package embedding

// Base declares the methods the other types promote.
type Base struct{ id int }

// Hello has a value receiver.
func (b Base) Hello() string { return "hello" }

// SetID has a pointer receiver.
func (b *Base) SetID(id int) { b.id = id }

// Logger is embedded through a pointer.
type Logger struct{ last string }

// Log has a pointer receiver.
func (l *Logger) Log(msg string) { l.last = msg }

// Greeter is satisfied by every type that has Hello.
type Greeter interface {
	Hello() string
}

// Setter is satisfied by every type whose method set has SetID.
type Setter interface {
	SetID(id int)
}
