package metadata

import (
	"os"
	"sort"
	"testing"
	"time"

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

// BenchmarkSupportFiles answers metadata/supportFiles for 128 mixed paths
// of the project, as a client asks before it edits them; it reports the
// 95th percentile of one answer.
func BenchmarkSupportFiles(b *testing.B) {
	dir := benchProject(b)
	off := false
	be := New(nil)
	info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off})
	if err != nil {
		b.Fatal(errText(err))
	}
	p := info.Projects[0]
	src, _ := FromPath(p.SourcePath)
	var paths []gen.Path
	for _, rel := range mixedPaths(b, src, gen.MaxSupportFilePaths) {
		paths = append(paths, ToPath(rel))
	}
	params := gen.SupportFilesParams{SessionID: info.SessionID, ProjectID: p.ProjectID, Paths: paths}
	if _, err := be.SupportFiles(params); err != nil {
		b.Fatal(errText(err))
	}
	b.ReportAllocs()
	b.ResetTimer()
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := be.SupportFiles(params); err != nil {
			b.Fatal(errText(err))
		}
		times = append(times, time.Since(start))
	}
	reportP95(b, times)
}

// BenchmarkSupportInventory is the first metadata/support page of a
// freshly opened project: the walk that reads every descriptor once.
func BenchmarkSupportInventory(b *testing.B) {
	dir := benchProject(b)
	off := false
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		be := New(nil)
		info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off})
		if err != nil {
			b.Fatal(errText(err))
		}
		if _, err := be.Support(gen.SupportParams{SessionID: info.SessionID, ProjectID: info.Projects[0].ProjectID}); err != nil {
			b.Fatal(errText(err))
		}
	}
}

// reportP95 adds the 95th percentile of times, in milliseconds.
func reportP95(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[(len(times)*95+99)/100-1].Microseconds())/1000, "p95-ms")
}
