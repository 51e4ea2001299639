module metal-fake/go/metalfake

go 1.22
