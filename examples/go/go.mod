module github.com/crio-pin/crio-pin/examples/go

go 1.24

require github.com/crio-pin/crio-pin/go v0.0.0

replace github.com/crio-pin/crio-pin/go => ../../go
