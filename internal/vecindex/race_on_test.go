//go:build race

package vecindex

// raceEnabled: the race detector makes graph building about seven times
// slower, so the largest tests shrink under it.
const raceEnabled = true
