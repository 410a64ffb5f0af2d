package util_test

import (
	"testing"

	"example.com/app/util"
)

func TestServer(t *testing.T) {
	util.NewServer("").Close()
}
