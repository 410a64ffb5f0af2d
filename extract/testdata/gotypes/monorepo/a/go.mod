module example.com/a

go 1.22

require example.com/b v0.0.0

replace example.com/b => ../b
