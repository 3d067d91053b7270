package metadata

import (
	"os"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// benchProject is the project the benchmarks open: ESKA_BENCH_PROJECT
// (a directory with an eska.toml, such as an extracted SSL 3.1 corpus),
// or the small test fixture.
func benchProject(b *testing.B) string {
	if dir := os.Getenv("ESKA_BENCH_PROJECT"); dir != "" {
		return dir
	}
	dir := b.TempDir()
	writeTree(b, dir, configurationFixture())
	return dir
}

// BenchmarkIndex is a full index of a freshly opened project, without the
// disk cache; it reports records per second.
func BenchmarkIndex(b *testing.B) {
	dir := benchProject(b)
	off := false
	var records int64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		be := New(nil)
		info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off})
		if err != nil {
			b.Fatal(errText(err))
		}
		ctx := gen.IndexParams{SessionID: info.SessionID, ProjectID: info.Projects[0].ProjectID, Action: gen.IndexActionStart}
		be.Index(ctx)
		for be.Background() {
		}
		ctx.Action = gen.IndexActionStatus
		r, _ := be.Index(ctx)
		records = r.Progress.IndexedObjects
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkSearch is one search over a complete index.
func BenchmarkSearch(b *testing.B) {
	dir := benchProject(b)
	off := false
	be := New(nil)
	info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off})
	if err != nil {
		b.Fatal(errText(err))
	}
	ix := gen.IndexParams{SessionID: info.SessionID, ProjectID: info.Projects[0].ProjectID, Action: gen.IndexActionStart}
	be.Index(ix)
	for be.Background() {
	}
	p := gen.SearchParams{SessionID: info.SessionID, ProjectID: info.Projects[0].ProjectID, Text: "ко"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := be.Search(p); err != nil {
			b.Fatal(errText(err))
		}
	}
}
