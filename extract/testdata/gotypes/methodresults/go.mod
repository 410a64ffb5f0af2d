module example.com/methodresults

go 1.22
