module github.com/crio-pin/crio-pin/examples/go

go 1.24.0

require github.com/crio-pin/crio-pin/go v0.0.0

require (
	github.com/tetratelabs/wazero v1.11.0 // indirect
	golang.org/x/sys v0.38.0 // indirect
)

replace github.com/crio-pin/crio-pin/go => ../../go
