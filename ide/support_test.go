package ide

import (
	"encoding/json"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// supportPolicy appears from minor 2 and supportFiles from minor 3, both
// true; before that the members are absent and the methods are Method
// not found.
//
//contract:proves eska-ide-api.support.capability
//contract:proves eska-ide-api.method.metadata-support
func TestSupportCapabilities(t *testing.T) {
	ctx := `"sessionId":"s9","projectId":"p1","generation":"0"`
	for minor := 0; minor <= gen.SupportedAPIMinor; minor++ {
		s := open(t)
		r, _ := decodeResponse(s.call(initialize(minor, false)))
		var res struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		for name, since := range map[string]int{"supportPolicy": 2, "supportFiles": 3} {
			got, present := res.Capabilities[name]
			if present != (minor >= since) || (present && string(got) != "true") {
				t.Errorf("minor %d: %s = %s (present %v)", minor, name, got, present)
			}
		}
		for method, since := range map[string]int{"metadata/support": 2, "metadata/supportFiles": 3} {
			params := ctx
			if method == "metadata/supportFiles" {
				params += `,"paths":[{"value":"Configuration.xml","encoding":"utf-8"}]`
			}
			code, kind := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"m","method":"`+method+`","params":{`+params+`}}`))
			if minor < since && code != gen.CodeMethodNotFound {
				t.Errorf("minor %d, %s: %d", minor, method, code)
			}
			if minor >= since && (code != gen.CodeRequestFailed || kind != "unknown_session") {
				t.Errorf("minor %d, %s: %d %s", minor, method, code, kind)
			}
		}
	}
}

// metadata/support takes a limit of 1 to 500 and metadata/supportFiles 1
// to 128 paths: the bounds reach the backend, one past them is invalid
// params.
//
//contract:proves eska-ide-api.support.paging eska-ide-api.support.files eska-ide-api.limits.paging
//contract:proves eska-ide-api.method.metadata-support eska-ide-api.method.metadata-support-files
func TestSupportLimits(t *testing.T) {
	s := open(t)
	s.call(initialize(3, false))
	ctx := `"sessionId":"s9","projectId":"p1","generation":"0"`
	paths := func(n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = `{"value":"Catalogs/К` + itoa(i) + `.xml","encoding":"utf-8"}`
		}
		return `"paths":[` + strings.Join(items, ",") + `]`
	}
	for _, c := range []struct {
		method, params string
		code           int64
	}{
		{"metadata/support", `"limit":500`, gen.CodeRequestFailed},
		{"metadata/support", `"limit":501`, gen.CodeInvalidParams},
		{"metadata/support", `"limit":1`, gen.CodeRequestFailed},
		{"metadata/support", `"limit":0`, gen.CodeInvalidParams},
		{"metadata/support", `"offset":-1`, gen.CodeInvalidParams},
		{"metadata/supportFiles", paths(gen.MaxSupportFilePaths), gen.CodeRequestFailed},
		{"metadata/supportFiles", paths(gen.MaxSupportFilePaths + 1), gen.CodeInvalidParams},
		{"metadata/supportFiles", paths(1), gen.CodeRequestFailed},
		{"metadata/supportFiles", paths(0), gen.CodeInvalidParams},
	} {
		resp := s.call(`{"jsonrpc":"2.0","id":"q","method":"` + c.method + `","params":{` + ctx + `,` + c.params + `}}`)
		code, kind := errorOf(t, resp)
		if code != c.code || (code == gen.CodeRequestFailed && kind != "unknown_session") {
			t.Errorf("%s %.40s: %d %s", c.method, c.params, code, kind)
		}
	}
}
