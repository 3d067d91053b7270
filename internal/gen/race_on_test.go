//go:build race

package gen

// raceEnabled: under the race detector a generation costs five to ten
// times its CPU time, and make test runs with -race; tests that repeat a
// generation to vary its input repeat it less there. The races themselves
// are between the emitters of one generation, which one run exercises.
const raceEnabled = true
