//go:build race

package contractdiff

// raceEnabled: the race detector makes every mutation of the oracle
// several times slower, so make test (which runs with -race) mutates fewer.
const raceEnabled = true
