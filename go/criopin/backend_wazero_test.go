//go:build !cgo || criopin_purego

package criopin_test

const wantBackend = "wasm"
