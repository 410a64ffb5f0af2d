module example.com/implements

go 1.22
