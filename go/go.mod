module github.com/crio-pin/crio-pin/go

go 1.24
