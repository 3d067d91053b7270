package pagecheck

import (
	"encoding/json"
	"testing"

	"github.com/contractkit/contractkit/agui"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// FuzzAnswer feeds arbitrary bytes to the page's checker as a file and as
// the JSON text of programmatic input, under both profiles: it must never
// panic, and every answer is either an error or valid JSON with a view
// that is valid JSON too.
func FuzzAnswer(f *testing.F) {
	f.Add(agui.TutorialExample())
	f.Add([]byte(`[{"type":"RUN_STARTED","threadId":"t","runId":"r"},{"type":"STATE_SNAPSHOT","snapshot":{"n":1.50,"b":1e400}}]`))
	f.Add([]byte(`[{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","metadata":{"a":[1,{"b":null}]}}]}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []string{contract.ProfileStand, contract.ProfileAgUI11} {
			opt := agui.Options{Profile: p, Source: "fuzz"}
			for _, a := range []Answer{CheckBytes(data, opt), CheckValues(data, opt)} {
				if a.Error != "" {
					continue
				}
				if !json.Valid(a.JSON) {
					t.Fatalf("invalid JSON: %q", a.JSON)
				}
				if a.Form != FormRefused && !json.Valid(a.View) {
					t.Fatalf("invalid view: %q", a.View)
				}
			}
		}
	})
}
