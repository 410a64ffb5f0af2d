package main

import "example.com/app/util"

func run() {
	var srv util.Server
	srv.Close()
	helper := func() {}
	helper()
	_ = len("x")
}
