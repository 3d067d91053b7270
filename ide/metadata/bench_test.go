package metadata

import (
	"os"
	"sort"
	"strconv"
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
		info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off}, gen.Grants{})
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
	info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off}, gen.Grants{})
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
	info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off}, gen.Grants{})
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
		info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off}, gen.Grants{})
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

// editBench opens ESKA_EDIT_PROJECT (a copy of SSL 3.1 whose support data
// allows editing; writes go to it and are undone) as an editing client
// and returns the catalogs and documents whose Comment the benchmarks
// edit, one descriptor each.
func editBench(b *testing.B) (*Backend, gen.ProjectContext, []gen.ObjectID) {
	dir := os.Getenv("ESKA_EDIT_PROJECT")
	if dir == "" {
		b.Skip("ESKA_EDIT_PROJECT names no editable copy of a project (make bench-edit makes one)")
	}
	be := New(nil)
	grants := editGrants(8)
	off := false
	info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off}, grants)
	if err != nil {
		b.Fatal(errText(err))
	}
	ctx := gen.ProjectContext{SessionID: info.SessionID, ProjectID: info.Projects[0].ProjectID}
	var ids []gen.ObjectID
	for _, o := range be.s.projects[0].root.children {
		if o.kind() == "catalog" || o.kind() == "document" {
			ids = append(ids, gen.ObjectID(o.id))
		}
	}
	return be, ctx, ids
}

func (be *Backend) benchEditing(b *testing.B, ctx gen.ProjectContext, id gen.ObjectID) gen.EditingResult {
	ctx.Generation = gen.Generation(be.s.projects[0].generation)
	r, err := be.PropertyEditing(gen.ObjectParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ctx.Generation, ObjectID: id})
	if err != nil {
		b.Fatal(errText(err))
	}
	return r
}

// BenchmarkEditPreview is metadata/previewProperty of a Comment, over the
// catalogs and documents of the project in turn.
func BenchmarkEditPreview(b *testing.B) {
	be, ctx, ids := editBench(b)
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		id := ids[i%len(ids)]
		ed := be.benchEditing(b, ctx, id)
		p := gen.PropertyEditParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ed.Generation, ObjectID: id,
			Snapshot: ed.Snapshot, Path: "Comment", Change: gen.TextChange{Value: "предпросмотр " + strconv.Itoa(i)}}
		start := time.Now()
		if _, err := be.PreviewProperty(p); err != nil {
			b.Fatal(errText(err))
		}
		times = append(times, time.Since(start))
	}
	reportP95(b, times)
}

// BenchmarkEditUpdate is metadata/updateProperty of a Comment: checks,
// the atomic write with its fsyncs, the history, metadata/changed and the
// object read again; each write is undone afterwards, untimed.
func BenchmarkEditUpdate(b *testing.B) {
	be, ctx, ids := editBench(b)
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		id := ids[i%len(ids)]
		ed := be.benchEditing(b, ctx, id)
		p := gen.PropertyEditParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ed.Generation, ObjectID: id,
			Snapshot: ed.Snapshot, Path: "Comment", Change: gen.TextChange{Value: "запись " + strconv.Itoa(i)}}
		start := time.Now()
		r, err := be.UpdateProperty(p)
		if err != nil {
			b.Fatal(errText(err))
		}
		times = append(times, time.Since(start))
		if _, err := be.UndoProperty(gen.UndoPropertyParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: r.Generation, ObjectID: id,
			Snapshot: r.Editing.Snapshot, Direction: gen.UndoDirectionUndo}); err != nil {
			b.Fatal(errText(err))
		}
	}
	reportP95(b, times)
}

// BenchmarkEditUndo is metadata/undoProperty: each catalog or document
// gets one write, then its undo and redo alternate.
func BenchmarkEditUndo(b *testing.B) {
	be, ctx, ids := editBench(b)
	for i, id := range ids {
		ed := be.benchEditing(b, ctx, id)
		if _, err := be.UpdateProperty(gen.PropertyEditParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ed.Generation, ObjectID: id,
			Snapshot: ed.Snapshot, Path: "Comment", Change: gen.TextChange{Value: "отмена " + strconv.Itoa(i)}}); err != nil {
			b.Fatal(errText(err))
		}
	}
	var times []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := ids[i%len(ids)]
		dir := gen.UndoDirectionUndo
		if (i/len(ids))%2 == 1 {
			dir = gen.UndoDirectionRedo
		}
		ed := be.benchEditing(b, ctx, id)
		start := time.Now()
		if _, err := be.UndoProperty(gen.UndoPropertyParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ed.Generation, ObjectID: id,
			Snapshot: ed.Snapshot, Direction: dir}); err != nil {
			b.Fatal(errText(err))
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	// Leave the copy as it was: undo what is still written.
	for _, id := range ids {
		ed := be.benchEditing(b, ctx, id)
		if ed.Undo {
			be.UndoProperty(gen.UndoPropertyParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ed.Generation, ObjectID: id,
				Snapshot: ed.Snapshot, Direction: gen.UndoDirectionUndo})
		}
	}
	reportP95(b, times)
}
