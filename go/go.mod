module github.com/crio-pin/crio-pin/go

go 1.24

require github.com/distribution/reference v0.6.0

require github.com/opencontainers/go-digest v1.0.0 // indirect
