module example.com/varinit

go 1.22
