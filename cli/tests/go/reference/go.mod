module crio-pin.test/reference

go 1.26.0

require go.podman.io/image/v5 v5.42.1

require (
	github.com/opencontainers/go-digest v1.0.0 // indirect
	go.podman.io/storage v1.65.1 // indirect
)
