module example.com/incremental

go 1.22
