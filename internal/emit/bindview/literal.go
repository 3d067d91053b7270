package bindview

import (
	"bytes"
	"encoding/json"
)

// Compact is a JSON value of the spec (a constant, a default, an enum
// value, an example) as the bindings print it: on one line, or as written
// when it is not JSON.
func Compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
