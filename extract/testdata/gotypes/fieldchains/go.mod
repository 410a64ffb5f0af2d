module example.com/fieldchains

go 1.22
