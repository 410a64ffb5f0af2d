package main

import (
	"fmt"
	"reflect"
)

type T struct{}

func (T) Visible() { T{}.helper() }

func (T) helper() {}

func (T) unused() {}

func main() {
	fmt.Println(reflect.ValueOf(T{}).MethodByName("Visible"))
}
