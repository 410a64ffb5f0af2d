module example.com/app

go 1.22

require (
	github.com/pkg/errors v0.9.1
	golang.org/x/sync v0.5.0 // indirect
)
