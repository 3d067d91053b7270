//go:build race

package bridge

// raceEnabled: the race detector makes every request several times
// slower, so make test (which runs with -race) sends fewer per connection.
const raceEnabled = true
