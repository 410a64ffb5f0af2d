package main

import "example.com/fx/p"

func main() { _ = p.Total(nil) }
