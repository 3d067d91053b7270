package agui

import _ "embed"

//go:embed tutorial.ndjson
var tutorial []byte

// TutorialExample returns the built-in tutorial record: a short run of the
// stand with a message, a tool call and its result, a state snapshot and
// delta, a step and an interrupt outcome. Check it with Options.Example set,
// so that the result says it is the example and not a chosen file.
func TutorialExample() []byte { return append([]byte(nil), tutorial...) }
