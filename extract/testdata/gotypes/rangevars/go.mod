module example.com/rangevars

go 1.22
