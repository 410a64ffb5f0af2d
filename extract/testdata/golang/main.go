package main

import (
	"fmt"
	"os"

	"example.com/app/util"
	"github.com/pkg/errors"
)

func main() {
	s := util.NewServer(":80")
	if err := s.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, errors.Wrap(err, "serve"))
	}
	run()
}
