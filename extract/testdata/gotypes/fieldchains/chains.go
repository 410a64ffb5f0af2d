// Package fieldchains calls methods at the end of field chains: one
// function per shape of chain, so that each is asserted on its own.
package fieldchains

// Engine is reached through the fields of Car and Garage.
type Engine struct{ rpm int }

// Start has a pointer receiver.
func (e *Engine) Start() { e.rpm = 800 }

// Stop has a value receiver.
func (e Engine) Stop() {}

// Car holds engines in every shape a field can take.
type Car struct {
	engine *Engine
	spare  Engine
	parts  []*Engine
	byName map[string]*Engine
}

// Garage holds cars.
type Garage struct {
	car  Car
	cars []*Car
}

// NewCar returns a car with an engine.
func NewCar() *Car {
	c := &Car{}
	c.engine = &Engine{}
	return c
}

// First returns the first car of the garage.
func (g *Garage) First() *Car { return g.cars[0] }

// PointerField is a.b.c.M() through a pointer field.
func PointerField(g *Garage) { g.car.engine.Start() }

// ValueField is a pointer method on an addressable value field.
func ValueField(g *Garage) { g.car.spare.Start() }

// ValueMethod is a value method at the end of a chain.
func ValueMethod(g Garage) { g.car.spare.Stop() }

// FuncResult is f().field.M().
func FuncResult() { NewCar().engine.Start() }

// MethodResult is g.M().field.M().
func MethodResult(g *Garage) { g.First().spare.Stop() }

// Index goes through slice elements.
func Index(g *Garage) { g.cars[0].parts[1].Start() }

// MapIndex goes through a map value.
func MapIndex(g *Garage) { g.car.byName["v8"].Start() }
