package main

import (
	"fmt"

	"example.com/app/util"
	"github.com/pkg/errors"
)

func main() {
	s := util.NewServer(":80")
	if err := s.ListenAndServe(); err != nil {
		fmt.Println(errors.Wrap(err, "serve"))
	}
	run()
}
