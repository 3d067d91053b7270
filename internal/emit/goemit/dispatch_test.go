package goemit_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/emit/goemit"
	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/spec"
)

// dispatchOf emits the IDE spec, after replacing old with new in its
// text, and returns the generated dispatch.go.
func dispatchOf(t *testing.T, old, new string) string {
	t.Helper()
	root := repotest.Root(t)
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	src := read("spec/ide-api.json")
	if old != "" {
		if bytes.Count(src, []byte(old)) != 1 {
			t.Fatalf("spec/ide-api.json does not hold %q exactly once", old)
		}
		src = bytes.Replace(src, []byte(old), []byte(new), 1)
	}
	fsys := fstest.MapFS{
		"spec/contract.schema.json": {Data: read("spec/contract.schema.json")},
		"spec/ide-api.json":         {Data: src},
	}
	set, diags := spec.LoadFilesWith(fsys, []string{"spec/ide-api.json"}, spec.LoadOptions{SkipSources: true, SkipDigest: true})
	if set == nil {
		t.Fatalf("spec: %v", diags)
	}
	files, err := goemit.Emit(set.Domains[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f.Path, "/dispatch.go") {
			return string(f.Data)
		}
	}
	t.Fatal("no dispatch.go")
	return ""
}

// The generated dispatcher answers invalid params with the table's
// message and fills the data when the spec's data type for the error can
// hold the pointer and the reason; a data type it cannot fill (a domain's
// own record with a required kind) is left to the handlers, and the
// message stays the literal either way.
//
//contract:proves eska-ide-api.error.invalid-params
func TestInvalidParamsData(t *testing.T) {
	const fills = "func invalidParamsData(err error) ErrorDetail"
	typed := dispatchOf(t, "", "")
	if !strings.Contains(typed, fills) || !strings.Contains(typed, "Data:    invalidParamsData(err),") {
		t.Errorf("the dispatcher does not fill ErrorDetail:\n%s", typed[strings.Index(typed, "func invalidParams("):])
	}
	const decl = `"symbol": "InvalidParams",
      "message": {
        "en": "Invalid params",
        "ru": "Некорректные параметры"
      },
      "data": "ErrorDetail",`
	other := dispatchOf(t, decl, strings.Replace(decl, `"ErrorDetail"`, `"DomainErrorData"`, 1))
	if strings.Contains(other, "invalidParamsData") {
		t.Errorf("the dispatcher fills a data type with a required kind:\n%s", other[strings.Index(other, "func invalidParams("):])
	}
	for _, src := range []string{typed, other} {
		if strings.Contains(src, `+ ": "`) || !strings.Contains(src, "Message: info.Message,") {
			t.Errorf("the message is not the table's literal:\n%s", src[strings.Index(src, "func invalidParams("):])
		}
	}
}

// The generated RPCError writes itself as the contract's error object:
// code, message and data in that order, data left out when nil, a value
// that writes itself kept as it wrote it, any other value through
// encoding/json, and a data value that cannot be written reported.
func TestRPCErrorJSON(t *testing.T) {
	for _, c := range []struct {
		err  *ide.RPCError
		want string
	}{
		{ide.NewError(ide.CodeMethodNotFound, nil), `{"code":-32601,"message":"Method not found"}`},
		{&ide.RPCError{Code: -32000, Message: "Request failed", Data: json.RawMessage(`{"kind":"cancelled","details":{}}`)},
			`{"code":-32000,"message":"Request failed","data":{"kind":"cancelled","details":{}}}`},
		{&ide.RPCError{Code: 1, Message: "<m>", Data: map[string]int{"b": 2, "a": 1}}, `{"code":1,"message":"\u003cm\u003e","data":{"a":1,"b":2}}`},
	} {
		got, err := json.Marshal(c.err)
		if err != nil || string(got) != c.want {
			t.Errorf("%+v: %s (%v), want %s", c.err, got, err, c.want)
		}
	}
	if got, err := (&ide.RPCError{Code: 1, Message: "m", Data: make(chan int)}).MarshalJSON(); err == nil {
		t.Errorf("data that cannot be written: %s, want an error", got)
	}
	// DataJSON is the data member alone, as a transport's envelope takes it.
	if data, err := ide.NewError(ide.CodeMethodNotFound, nil).DataJSON(); data != nil || err != nil {
		t.Errorf("no data: %s %v", data, err)
	}
	if data, err := (&ide.RPCError{Data: json.RawMessage(`{"a": 1}`)}).DataJSON(); string(data) != `{"a": 1}` || err != nil {
		t.Errorf("data that writes itself is kept as written: %s %v", data, err)
	}
	if data, err := (&ide.RPCError{Data: []int{1}}).DataJSON(); string(data) != `[1]` || err != nil {
		t.Errorf("plain data: %s %v", data, err)
	}
}
