module example.com/methodvalues

go 1.22
