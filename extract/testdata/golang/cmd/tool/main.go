package main

import "example.com/app/util"

func main() {
	srv := &util.Server{}
	_ = srv.ListenAndServe()
}
