module example.com/dotimport

go 1.22
