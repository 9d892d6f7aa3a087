module github.com/crio-pin/crio-pin/go

go 1.24.0

require (
	github.com/distribution/reference v0.6.0
	github.com/tetratelabs/wazero v1.11.0
	golang.org/x/sys v0.38.0
)

require github.com/opencontainers/go-digest v1.0.0 // indirect
