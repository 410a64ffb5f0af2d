module example.com/assertions

go 1.22
