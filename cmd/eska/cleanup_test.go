package main

// removeReleases deletes what the update tests built (update_test.go sets
// it where they run); TestMain calls it after the run.
var removeReleases = func() {}
