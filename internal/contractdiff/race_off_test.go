//go:build !race

package contractdiff

const raceEnabled = false
