module example.com/e1

go 1.22

require example.com/x v0.0.0

replace example.com/x => ../examples/x
