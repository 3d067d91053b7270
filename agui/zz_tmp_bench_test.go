package agui

import (
	"encoding/json"
	"testing"

	"github.com/contractkit/contractkit/internal/strictjson"
)

func BenchmarkTmpParse(b *testing.B) {
	data := largeStream(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := strictjson.Parse(data, strictjson.Options{MaxDepth: 21, MaxValues: 30001}); err != nil {
			b.Fatal(err)
		}
	}
}
func BenchmarkTmpSValid(b *testing.B) {
	data := largeStream(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := strictjson.Valid(data, strictjson.Options{MaxDepth: 21, MaxValues: 30001}); err != nil {
			b.Fatal(err)
		}
	}
}
func BenchmarkTmpValid(b *testing.B) {
	data := largeStream(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if !json.Valid(data) {
			b.Fatal()
		}
	}
}
