// Package subfolder is the module root; the test indexes only sub/, so
// this package is outside the indexed folder.
package subfolder

// Top is called from sub/app.
func Top() int { return 0 }
