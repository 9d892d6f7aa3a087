module github.com/crio-pin/crio-pin/examples/go

go 1.24

require github.com/crio-pin/crio-pin/go v0.0.0

require (
	github.com/distribution/reference v0.6.0 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
)

replace github.com/crio-pin/crio-pin/go => ../../go
