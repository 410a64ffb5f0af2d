package main

import (
	"reflect"
)

type T struct{}

func (T) Visible() { T{}.helper() }

func (T) helper() {}

func (T) unused() {}

func main() {
	sink = reflect.ValueOf(T{}).MethodByName("Visible")
}

// sink keeps values the fixture computes (not printed: nothing here writes to stdout).
var sink any
