//go:build race

package criopin_test

// raceEnabled: the race detector is on (sync.Pool drops items at random,
// so allocation counts are meaningless, and everything runs ~10x slower).
const raceEnabled = true
