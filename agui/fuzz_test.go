package agui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

func knownRule(id string) bool {
	for _, r := range contract.Rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// FuzzCheck runs the whole checker — the strict reader, the generated
// decoders and their hooks, the sequencer, the patch applier and the
// renderers — on arbitrary bytes under both profiles. It must never panic,
// every finding must name a rule of the contract and a place in the
// record, and a record the stand accepts never lists more runs than it
// allows.
func FuzzCheck(f *testing.F) {
	f.Add(TutorialExample())
	f.Add([]byte(`[{"type":"RUN_STARTED","threadId":"t","runId":"r"},{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"},{"type":"RUN_FINISHED","threadId":"t","runId":"r"}]`))
	f.Add([]byte("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n{\"type\":\"STATE_DELTA\",\"delta\":[{\"op\":\"add\",\"path\":\"/a/-\",\"value\":-0.0}]}\n"))
	f.Add([]byte(`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","metadata":{"\u0061":1}}]}}`))
	f.Add([]byte(`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"image","source":{"type":"x"}}]}]}`))
	f.Add([]byte("[1e400, \"\\ud800\", {\"a\":1,\"a\":2}]"))
	f.Add([]byte("{\"type\":\"RUN_ERROR\",\"message\":\"m\"}\n{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"outcome\":null}\n{\"type\":\"RUN_ERROR\",\"message\":\"late\",\"runId\":\"x\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []string{stand, v11} {
			r, err := Check(data, Options{Profile: p})
			if err != nil {
				continue // nothing to check: an empty record
			}
			if r.Accepted != (len(r.Findings) == 0) {
				t.Fatalf("accepted %v with findings %v", r.Accepted, r.Findings)
			}
			if p == stand && r.Accepted && len(r.Runs) > contract.LimitRuns {
				t.Fatalf("the stand accepted a record with %d runs", len(r.Runs))
			}
			for _, f := range append(append([]Finding(nil), r.Findings...), r.Warnings...) {
				if !knownRule(f.Rule) {
					t.Fatalf("finding names unknown rule %q: %v", f.Rule, f)
				}
				if f.Event < FileLevel || f.Event > contract.LimitEvents || (f.Pointer != "" && f.Pointer[0] != '/') {
					t.Fatalf("finding at an impossible place: %v", f)
				}
			}
			if r.State != nil && !json.Valid(r.State) {
				t.Fatalf("state is not JSON: %q", r.State)
			}
			for _, render := range []func() ([]byte, error){r.RenderText, r.RenderJSON} {
				out, _ := render()
				if len(out) > contract.LimitOutputBytes {
					t.Fatalf("rendered %d bytes", len(out))
				}
			}
			// The result owns what it shows: reusing the record's bytes
			// afterwards changes nothing.
			before, _ := r.RenderJSON()
			clobbered := bytes.Clone(data)
			r2, _ := Check(clobbered, Options{Profile: p})
			for i := range clobbered {
				clobbered[i] = '#'
			}
			if after, _ := r2.RenderJSON(); !bytes.Equal(before, after) {
				t.Fatalf("the result changed with the bytes it was checked from")
			}
		}
	})
}

// FuzzApplyPatch applies arbitrary patches to arbitrary documents with and
// without copy and move. It must never panic; a patch that fails must
// leave the document exactly as it was, and one that applies must leave a
// document that writes back as JSON.
func FuzzApplyPatch(f *testing.F) {
	f.Add(`{"a":[1,2],"b":{"c":null}}`, `[{"op":"add","path":"/a/-","value":3},{"op":"test","path":"/b","value":{"c":null}}]`)
	f.Add(`{"foo":["all","grass","cows","eat"]}`, `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`)
	f.Add(`{"":{"~1":[]}}`, `[{"op":"copy","from":"/","path":"//~01/0"},{"op":"remove","path":"/"}]`)
	f.Add(`[]`, `[{"op":"add","path":"","value":{}},{"op":"replace","path":"/x","value":1}]`)
	f.Add(`{"a":1}`, `[{"op":"remove","path":""}]`)
	f.Fuzz(func(t *testing.T, docText, patchText string) {
		if _, err := strictjson.Parse([]byte(docText), strictjson.Options{MaxDepth: 64}); err != nil {
			return
		}
		list, err := strictjson.Parse([]byte(patchText), strictjson.Options{MaxDepth: 64})
		if err != nil || list.Kind != strictjson.Array || len(list.Elems) > 64 {
			return
		}
		ops, err := opsOfTree(list)
		if err != nil {
			return
		}
		for _, opt := range []patchOptions{{}, {copyMove: true}} {
			doc, _ := strictjson.Parse([]byte(docText), strictjson.Options{MaxDepth: 64})
			before := compact(doc)
			p := newPatcher(doc, opt)
			if fault := p.apply(ops); fault != nil {
				if got := compact(p.root); got != before {
					t.Fatalf("a failed patch left %s, not %s", got, before)
				}
				if fault.Index < 0 || fault.Index >= len(list.Elems) || strings.TrimSpace(fault.Msg) == "" {
					t.Fatalf("fault %+v", fault)
				}
				continue
			}
			if !opt.copyMove {
				for _, op := range ops {
					if op.Op == opCopy || op.Op == opMove {
						t.Fatalf("copy or move applied where they are not allowed")
					}
				}
			}
			// Undoing a patch that applied restores the document too.
			p.rollback()
			if got := compact(p.root); got != before {
				t.Fatalf("rolled back to %s, not %s", got, before)
			}
			p = newPatcher(doc, opt)
			if fault := p.apply(ops); fault != nil {
				t.Fatalf("the patch applied once and then failed: %v", fault)
			}
			if _, err := strictjson.Parse(p.root.AppendCompact(nil), strictjson.Options{MaxDepth: 1 << 20}); err != nil {
				t.Fatalf("the result does not read back: %v", err)
			}
		}
	})
}
