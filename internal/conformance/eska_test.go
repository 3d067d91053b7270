package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/repotest"
)

// The eska message fixtures decode with the generated IDE DTOs, and every
// decoded message survives decode → encode → decode unchanged. Messages
// outside the contract (an unknown notification, a malformed batch item)
// and one request whose fixture carries only the session context of a
// write method (answered Method not found before its params are read) are
// listed by name.
func TestEskaFixturesRoundTrip(t *testing.T) {
	dir := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "eska", "docs", "ide-protocol")
	raw, err := os.ReadFile(filepath.Join(dir, "fixtures.json"))
	if err != nil {
		repotest.MissingPart(t, "eska fixtures not found (%v): ../shared is absent", err)
	}
	var fx struct {
		Cases []struct {
			Name   string            `json:"name"`
			Client []json.RawMessage `json:"client"`
			Server []json.RawMessage `json:"server"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	decoded, outside := 0, 0
	roundTrip := func(where string, decode func([]byte) (any, error), data []byte) {
		v, err := decode(data)
		if err != nil {
			t.Errorf("%s: %s does not decode: %v", where, data, err)
			return
		}
		a, err := json.Marshal(v)
		if err != nil {
			t.Errorf("%s: encode: %v", where, err)
			return
		}
		v2, err := decode(a)
		if err != nil {
			t.Errorf("%s: re-encoded %s does not decode: %v", where, a, err)
			return
		}
		b, _ := json.Marshal(v2)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: encodings differ:\n%s\n%s", where, a, b)
			return
		}
		decoded++
	}
	for _, c := range fx.Cases {
		methods := map[string]string{} // request id → method
		var flat func(raws []json.RawMessage, side string)
		flat = func(raws []json.RawMessage, side string) {
			for i, r := range raws {
				if bytes.HasPrefix(bytes.TrimSpace(r), []byte("[")) {
					var items []json.RawMessage
					_ = json.Unmarshal(r, &items)
					flat(items, side)
					continue
				}
				var m msg
				if err := json.Unmarshal(r, &m); err != nil {
					outside++ // a malformed batch item such as 42
					continue
				}
				where := c.Name + "/" + side
				switch {
				case m.Method != "" && m.ID != nil:
					methods[string(m.ID)] = m.Method
					info, ok := ide.LookupMethod(m.Method)
					if !ok {
						t.Errorf("%s: unknown method %s", where, m.Method)
						continue
					}
					if c.Name == "write-not-supported" {
						outside++ // only the session context: refused before its params are read
						continue
					}
					params := m.Params
					if params == nil {
						params = json.RawMessage("{}")
					}
					roundTrip(where+" "+m.Method+" params", info.DecodeParams, params)
				case m.Method != "":
					found := false
					for _, n := range ide.Notifications {
						if n.Name == m.Method {
							found = true
							if n.DecodeParams != nil {
								roundTrip(where+" "+m.Method, n.DecodeParams, m.Params)
							}
						}
					}
					if !found {
						outside++ // an unknown notification, ignored by the contract
					}
				case m.Error != nil:
					if m.Error.Data != nil {
						roundTrip(where+" error data", func(b []byte) (any, error) { return ide.DecodeDomainErrorData(b) }, m.Error.Data)
					}
				case m.Result != nil:
					method := methods[string(m.ID)]
					info, ok := ide.LookupMethod(method)
					if !ok {
						t.Errorf("%s: response %d to an unknown request %s", where, i, m.ID)
						continue
					}
					if info.DecodeResult == nil {
						if string(m.Result) != "null" {
							t.Errorf("%s: %s has a null result, got %s", where, method, m.Result)
						}
						decoded++
						continue
					}
					roundTrip(where+" "+method+" result", info.DecodeResult, m.Result)
				}
			}
		}
		flat(c.Client, "client")
		flat(c.Server, "server")
	}
	if decoded < 40 {
		t.Errorf("only %d fixture messages decoded", decoded)
	}
	t.Logf("%d fixture messages decoded and round-tripped; %d outside the contract", decoded, outside)
}
