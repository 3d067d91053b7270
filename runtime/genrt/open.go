package genrt

import (
	"encoding/json"
	"fmt"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// AppendUnknownMembers writes the members of raw, a JSON object kept by
// the decoder of an open union for a tag it did not know, into an object
// being written (after its opening brace). raw must be a JSON object.
func AppendUnknownMembers(b []byte, what string, raw json.RawMessage) ([]byte, error) {
	v, err := strictjson.Parse(raw, strictjson.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if v.Kind != strictjson.Object {
		return nil, fmt.Errorf("%s: the kept value is %s, not an object", what, v.Kind)
	}
	for _, m := range v.Members {
		if len(b) > 0 && b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = strictjson.AppendString(b, m.Key)
		b = append(b, ':')
		b = m.Value.AppendCompact(b)
	}
	return b, nil
}
