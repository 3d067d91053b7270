package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/generated"
	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/runtime/genrt"
)

type example struct {
	where   string // spec file and pointer of the example
	typ     *spec.Type
	raw     json.RawMessage
	valid   bool
	pointer string
}

func examples(d *spec.Domain) []example {
	var out []example
	add := func(t *spec.Type, ex spec.Examples, ptr string) {
		for i, v := range ex.Valid {
			out = append(out, example{fmt.Sprintf("%s:%s/valid/%d", d.File, ptr, i), t, v, true, ""})
		}
		for i, v := range ex.Invalid {
			out = append(out, example{fmt.Sprintf("%s:%s/invalid/%d", d.File, ptr, i), t, v.Value, false, v.Pointer})
		}
	}
	for _, t := range d.Types {
		if t.Examples != nil {
			add(t, *t.Examples, t.Ptr+"/examples")
		}
	}
	for _, m := range d.Methods {
		add(m.ParamsType, m.Examples.Params, m.Ptr+"/examples/params")
		if m.ResultType != nil {
			add(m.ResultType, m.Examples.Result, m.Ptr+"/examples/result")
		}
	}
	return out
}

func load(t *testing.T) *spec.Set {
	t.Helper()
	set, diags := spec.Load(os.DirFS(repotest.Root(t)))
	if diags.HasErrors() {
		t.Fatal(diags.Errors().Error())
	}
	return set
}

func compiler(t *testing.T, c generated.Contract) func(typ string) *jsonschema.Schema {
	comp := jsonschema.NewCompiler()
	comp.Draft = jsonschema.Draft2020
	comp.LoadURL = func(u string) (io.ReadCloser, error) { return nil, fmt.Errorf("no network: %s", u) }
	cache := map[string]*jsonschema.Schema{}
	return func(typ string) *jsonschema.Schema {
		if s := cache[typ]; s != nil {
			return s
		}
		data, err := fs.ReadFile(c.SchemaFS, "schema/"+typ+".json")
		if err != nil {
			t.Fatalf("%s: schema of %s: %v", c.Domain, typ, err)
		}
		url := "mem:///" + c.Package + "/" + typ + ".json"
		if err := comp.AddResource(url, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		s, err := comp.Compile(url)
		if err != nil {
			t.Fatalf("%s: schema of %s does not compile: %v", c.Domain, typ, err)
		}
		cache[typ] = s
		return s
	}
}

func instance(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	_ = dec.Decode(&v)
	return v
}

// Every spec example gets the same verdict from the Go decoder and the
// JSON Schema; an invalid example is rejected at the pointer the spec
// names, with the domain's invalid-params code.
func TestExamplesAgree(t *testing.T) {
	set := load(t)
	if len(generated.Contracts) != len(set.Domains) {
		t.Fatalf("generated.Contracts has %d domains, the specs %d: run make generate", len(generated.Contracts), len(set.Domains))
	}
	for _, c := range generated.Contracts {
		d := set.Domain(c.Domain)
		if d == nil {
			t.Fatalf("generated contract %s has no spec", c.Domain)
		}
		if c.Digest != d.Digest {
			t.Fatalf("%s: generated digest %s, spec digest %s: run make generate", c.Domain, c.Digest, d.Digest)
		}
		schemaOf := compiler(t, c)
		code := int64(0)
		if e := d.LookupError(d.Header.InvalidParams); e != nil {
			code = e.Code
		}
		n := 0
		for _, ex := range examples(d) {
			n++
			decode := c.Decoders[ex.typ.Name]
			if decode == nil {
				t.Fatalf("%s: no decoder for %s", ex.where, ex.typ.Name)
			}
			_, goErr := decode(ex.raw)
			schemaErr := schemaOf(ex.typ.Name).Validate(instance(ex.raw))
			if (goErr == nil) != (schemaErr == nil) {
				t.Errorf("%s: Go decoder says %v, JSON Schema says %v", ex.where, verdict(goErr), verdict(schemaErr))
				continue
			}
			if ex.valid {
				if goErr != nil {
					t.Errorf("%s: valid example rejected by both: %v", ex.where, goErr)
				}
				continue
			}
			if goErr == nil {
				t.Errorf("%s: invalid example accepted by both", ex.where)
				continue
			}
			var ve *genrt.ValidationError
			if !errors.As(goErr, &ve) {
				t.Errorf("%s: error %T is not a *ValidationError", ex.where, goErr)
				continue
			}
			if ve.Pointer != ex.pointer {
				t.Errorf("%s: rejected at %q (%s), the spec says at %q", ex.where, ve.Pointer, ve.Message, ex.pointer)
			}
			if ve.Code != code {
				t.Errorf("%s: code %d, want the invalid-params code %d", ex.where, ve.Code, code)
			}
		}
		if n == 0 {
			t.Errorf("%s has no examples", c.Domain)
		}
		t.Logf("%s: %d examples checked", c.Domain, n)
	}
}

func verdict(err error) string {
	if err == nil {
		return "valid"
	}
	return "invalid (" + err.Error() + ")"
}

// A valid example decodes, encodes to JSON the schema accepts, and decodes
// again to the same encoding.
func TestRoundTrip(t *testing.T) {
	set := load(t)
	for _, c := range generated.Contracts {
		d := set.Domain(c.Domain)
		schemaOf := compiler(t, c)
		for _, ex := range examples(d) {
			if !ex.valid {
				continue
			}
			decode := c.Decoders[ex.typ.Name]
			v, err := decode(ex.raw)
			if err != nil {
				t.Errorf("%s: %v", ex.where, err)
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Errorf("%s: marshal: %v", ex.where, err)
				continue
			}
			if err := schemaOf(ex.typ.Name).Validate(instance(out)); err != nil {
				t.Errorf("%s: encoded %s is rejected by the schema: %v", ex.where, out, err)
			}
			v2, err := decode(out)
			if err != nil {
				t.Errorf("%s: encoded %s does not decode: %v", ex.where, out, err)
				continue
			}
			out2, err := json.Marshal(v2)
			if err != nil || !bytes.Equal(out, out2) {
				t.Errorf("%s: second encoding differs:\n%s\n%s", ex.where, out, out2)
			}
		}
	}
}
