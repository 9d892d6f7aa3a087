//go:build !race

package criopin_test

const raceEnabled = false
