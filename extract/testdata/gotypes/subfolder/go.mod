module example.com/subfolder

go 1.22
