//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go

package criopin

// IndexResult and EachResult check the library's answers, as every match
// does (a failure value must panic, not read as "not pinned").
func IndexResult(r int64) int { return indexResult(r) }

func EachResult(r uint64, count int) { eachResult(r, count) }
