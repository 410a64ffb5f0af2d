module example.com/closures

go 1.22
