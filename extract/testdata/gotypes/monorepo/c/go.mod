module example.com/c

go 1.22

require example.com/b v1.4.0
