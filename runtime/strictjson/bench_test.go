package strictjson

import (
	"encoding/json"
	"strconv"
	"testing"
)

// smallDoc is a typical JSON-RPC request as seen by the stdio server.
const smallDoc = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search","arguments":{"q":"go","n":10}}}`

func mediumDoc() string { return smallDoc }

// largeDoc returns a deterministic document of about size bytes: an object
// holding an array of records with nested objects, arrays, strings (some
// with escapes), integers, floats, booleans and nulls.
func largeDoc(size int) []byte {
	b := []byte(`{"version":"1.0","generated":true,"records":[`)
	for i := 0; len(b) < size-200; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(i*7919), 10)
		b = append(b, `,"name":"user-`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `","email":"user`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `@example.com","score":`...)
		b = strconv.AppendFloat(b, float64(i)*1.25-300.5, 'g', -1, 64)
		b = append(b, `,"active":`...)
		b = strconv.AppendBool(b, i%3 == 0)
		b = append(b, `,"tags":["alpha","beta","gamma"],"geo":{"lat":`...)
		b = strconv.AppendFloat(b, 45.123456+float64(i)/1000, 'f', 6, 64)
		b = append(b, `,"lon":-`...)
		b = strconv.AppendFloat(b, 122.654321+float64(i)/1000, 'f', 6, 64)
		b = append(b, `},"note":"line one\nline \"two\"\ttabbed é","parent":null,"history":[1,2,3,5,8,13,21,1e3,-0.5]}`...)
	}
	b = append(b, `],"count":1}`...)
	return b
}

var benchDocs = []struct {
	name string
	data []byte
}{
	{"small", []byte(smallDoc)},
	{"64KiB", largeDoc(64 << 10)},
}

func BenchmarkParse(b *testing.B) {
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(d.data, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValid(b *testing.B) {
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := Valid(d.data, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseInterface(b *testing.B) {
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			for b.Loop() {
				v, err := Parse(d.data, Options{})
				if err != nil {
					b.Fatal(err)
				}
				_ = v.Interface()
			}
		})
	}
}

func BenchmarkEncodingJSONUnmarshalAny(b *testing.B) {
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			for b.Loop() {
				var x any
				if err := json.Unmarshal(d.data, &x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodingJSONValid(b *testing.B) {
	for _, d := range benchDocs {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			for b.Loop() {
				if !json.Valid(d.data) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

func BenchmarkAppendCompact(b *testing.B) {
	v, err := Parse(benchDocs[1].data, Options{})
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, len(benchDocs[1].data))
	b.SetBytes(int64(len(benchDocs[1].data)))
	b.ReportAllocs()
	for b.Loop() {
		buf = v.AppendCompact(buf[:0])
	}
}
