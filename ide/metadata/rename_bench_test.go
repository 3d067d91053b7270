package metadata

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/cputime"
)

// renameBench opens ESKA_EDIT_PROJECT (an editable copy of SSL 3.1, see
// editBench) as a client of 1.11 and returns the object to rename:
// ESKA_RENAME_OBJECT, by default the most referenced catalog of SSL.
func renameBench(b *testing.B) (*Backend, gen.ProjectContext, *object) {
	dir := os.Getenv("ESKA_EDIT_PROJECT")
	if dir == "" {
		b.Skip("ESKA_EDIT_PROJECT names no editable copy of a project (make bench-rename makes one)")
	}
	id := os.Getenv("ESKA_RENAME_OBJECT")
	if id == "" {
		id = "catalog:ИдентификаторыОбъектовМетаданных"
	}
	be := New(nil)
	grants := editGrants(11)
	off := false
	info, err := be.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off}, grants)
	if err != nil {
		b.Fatal(errText(err))
	}
	o, ok := be.s.projects[0].objs[id]
	if !ok {
		b.Fatalf("%s is not in %s", id, dir)
	}
	return be, gen.ProjectContext{SessionID: info.SessionID, ProjectID: info.Projects[0].ProjectID}, o
}

// BenchmarkRenameFloor reads every XML and BSL file of the project once:
// the least a rename's scan of all sources can cost, measured in the
// same run as the anchor of the two below.
func BenchmarkRenameFloor(b *testing.B) {
	be, _, _ := renameBench(b)
	src := be.s.projects[0].r.Src
	files, _, err := sourceFiles(src)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var times []time.Duration
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		var n int64
		var buf []byte
		for _, rel := range files {
			buf, err = readInto(filepath.Join(src, filepath.FromSlash(rel)), buf)
			if err != nil {
				b.Fatal(err)
			}
			n += int64(len(buf))
		}
		times = append(times, time.Since(t0))
		b.SetBytes(n)
	}
	reportCPU(b, cpuTime()-c0)
	reportP95(b, times)
}

// cpuTime is the process's processor time, or 0 where it cannot be read
// (reportCPU then reports none).
func cpuTime() time.Duration {
	d, _ := cputime.Process()
	return d
}

// reportCPU adds the processor time per operation, user and system, of
// every goroutine: steadier than the wall clock when the machine is busy.
func reportCPU(b *testing.B, d time.Duration) {
	if d > 0 {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkRenamePreview is metadata/renamePreview of the object: every
// XML and BSL file scanned, the plan built and checked against the
// support rules.
func BenchmarkRenamePreview(b *testing.B) {
	be, ctx, o := renameBench(b)
	var times []time.Duration
	var r gen.RenamePreviewResult
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		var err error
		r, err = be.RenamePreview(gen.RenamePreviewParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, ObjectID: gen.ObjectID(o.id), NewName: o.name + "Новый"})
		times = append(times, time.Since(t0))
		if err != nil || !r.ApplyAvailable {
			b.Fatalf("%s %+v", errText(err), r.Plan.Issues)
		}
	}
	reportCPU(b, cpuTime()-c0)
	reportPlan(b, r)
	reportP95(b, times)
}

func reportPlan(b *testing.B, r gen.RenamePreviewResult) {
	edits := 0
	for _, f := range r.Plan.Files {
		edits += len(f.Edits)
	}
	b.ReportMetric(float64(len(r.Plan.Files)), "files")
	b.ReportMetric(float64(edits), "replacements")
	b.ReportMetric(float64(len(r.Plan.Uncertain)), "uncertain")
}

// BenchmarkRenameApply is metadata/renameApply of the object, to a new
// name and back in turn: the plan built again, every file written
// through the journal with its fsyncs, the tree read again from the
// root, metadata/changed and the renamed object's properties and editing
// state. The preview before each apply is not timed.
func BenchmarkRenameApply(b *testing.B) {
	be, ctx, o := renameBench(b)
	kind, name := string(o.info.Kind), o.name
	cur, next := name, name+"Новый"
	defer func() {
		if cur != name {
			// Leave the copy as it was found.
			c := ctx
			c.Generation = gen.Generation(be.s.projects[0].generation)
			r, _ := be.RenamePreview(gen.RenamePreviewParams{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation, ObjectID: gen.ObjectID(kind + ":" + cur), NewName: name})
			be.RenameApply(gen.RenameApplyParams{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation, ObjectID: gen.ObjectID(kind + ":" + cur),
				NewName: name, Snapshot: r.Plan.Snapshot, ReviewedUncertain: true})
		}
	}()
	var times []time.Duration
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := ctx
		c.Generation = gen.Generation(be.s.projects[0].generation)
		id := gen.ObjectID(kind + ":" + cur)
		r, err := be.RenamePreview(gen.RenamePreviewParams{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation, ObjectID: id, NewName: next})
		if err != nil || !r.ApplyAvailable {
			b.Fatalf("%s %+v", errText(err), r.Plan.Issues)
		}
		if i == 0 {
			reportPlan(b, r)
		}
		b.StartTimer()
		t0, c0 := time.Now(), cpuTime()
		if _, err := be.RenameApply(gen.RenameApplyParams{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation, ObjectID: id,
			NewName: next, Snapshot: r.Plan.Snapshot, ReviewedUncertain: true}); err != nil {
			b.Fatal(errText(err))
		}
		times = append(times, time.Since(t0))
		cpu += cpuTime() - c0
		cur, next = next, cur
	}
	b.StopTimer()
	reportCPU(b, cpu)
	reportP95(b, times)
}
