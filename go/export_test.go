package criopin

// LiveSets is the number of C sets this package owns and has not freed.
func LiveSets() int64 { return liveSets.Load() }
