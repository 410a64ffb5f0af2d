module example.com/refl

go 1.22
