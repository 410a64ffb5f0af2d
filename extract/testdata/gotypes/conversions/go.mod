module example.com/conversions

go 1.22
