// Command app starts the fixture program.
package main

var ready bool

func init() { ready = true }

func main() {}
