module example.com/funcvalues

go 1.22
