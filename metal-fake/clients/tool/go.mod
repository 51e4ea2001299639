module census

go 1.22
