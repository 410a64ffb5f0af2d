package p

import (
	"fmt"
	"io"
	"reflect"
)

// R satisfies io.Reader and fmt.Stringer, interfaces declared outside.
type R struct{}

func (R) Read(p []byte) (int, error) { return 0, io.EOF }
func (R) String() string             { return "r" }
func (R) unexported()                {}

// Idle satisfies fmt.Stringer but nothing builds it.
type Idle struct{}

func (Idle) String() string { return "idle" }

func useExt() {
	_, _ = io.Copy(io.Discard, R{})
	f := cb
	f()
}

func cb() {}

func deadCaller() { g := deadValue; g() }

func deadValue() {}

func reflective() {
	sink = reflect.ValueOf(R{}).MethodByName("String")
}

// fmt stays imported: its Stringer is the outside interface R and Idle satisfy.
var _ = fmt.Sprint
