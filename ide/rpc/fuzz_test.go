package rpc

import (
	"bytes"
	"testing"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// FuzzEnvelope runs arbitrary bodies through the frame classifier: never a
// panic; a valid message has a method and, if it has an id, an id the
// rules accept; params are an object when present.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"a","params":{}}`, `[{"jsonrpc":"2.0","method":"n"},42]`, `[]`, `{`,
		`{"jsonrpc":"2.0","id":"x","method":"m","params":[1]}`, `[[[[[[[[[[1]]]]]]]]]]`, `{"a":1,"a":2}`,
		`{"jsonrpc":"2.0","id":9007199254740991,"method":"m"}`, `{"jsonrpc":"2.0","id":1.0,"method":"m"}`,
		`[0,"]",{"a":"}"},[1,[2]],null,true,-1.5e3,{"jsonrpc":"2.0","id":1,"method":"m"}]`,
	} {
		f.Add([]byte(s))
	}
	s := NewServer(testConfig(newFake(), nil))
	f.Fuzz(func(t *testing.T, body []byte) {
		items, batch, frameErr := s.parseFrame(body)
		if frameErr != nil {
			if items != nil {
				t.Fatal("items with a frame error")
			}
			return
		}
		if batch && items == nil {
			// Over the item limit: the element scanner must cut the body
			// exactly where the parser sees the elements.
			v, err := strictjson.Parse(body, strictjson.Options{})
			if err != nil || v.Kind != strictjson.Array {
				t.Fatalf("an oversize batch that does not parse: %v", err)
			}
			i := 0
			eachElem(body, func(elem []byte) bool {
				if i >= len(v.Elems) || string(elem) != string(body[v.Elems[i].Start:v.Elems[i].End]) {
					t.Fatalf("element %d is %q", i, elem)
				}
				i++
				return true
			})
			if i != len(v.Elems) || i <= testLimits.MaxBatchItems {
				t.Fatalf("%d elements scanned of %d", i, len(v.Elems))
			}
			// Its answer, if any, is one frame holding a JSON array.
			if parts := s.oversizeBatch(body); parts != nil {
				joined := bytes.Join(parts, nil)
				for _, p := range parts {
					release(p)
				}
				fr := NewFrameReader(bytes.NewReader(joined), 64, 1<<20)
				reply, err := fr.ReadFrame()
				if err != nil || strictjson.Valid(reply, strictjson.Options{}) != nil || reply[0] != '[' {
					t.Fatalf("answer %q: %v", reply, err)
				}
			}
			return
		}
		if len(items) == 0 || (!batch && len(items) != 1) {
			t.Fatalf("%d items, batch %v", len(items), batch)
		}
		for _, it := range items {
			if it.failure != nil {
				continue
			}
			if it.msg.method == "" {
				t.Fatal("empty method accepted")
			}
			if it.msg.id != nil {
				v, err := strictjson.Parse(it.msg.id, strictjson.Options{})
				if err != nil || !s.validID(v) {
					t.Fatalf("id %q accepted", it.msg.id)
				}
			}
			if it.msg.params != nil && it.msg.params.Kind != strictjson.Object {
				t.Fatalf("params %q accepted", it.msg.params.AppendCompact(nil))
			}
		}
	})
}
