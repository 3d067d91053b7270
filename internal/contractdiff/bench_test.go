package contractdiff

import (
	"os"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/spec"
)

// BenchmarkCompare compares every spec of the repository with itself: the
// whole walk over the model, without finding anything to report.
func BenchmarkCompare(b *testing.B) {
	set, diags := spec.Load(os.DirFS(repotest.Root(b)))
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, d := range set.Domains {
			if fs := Compare(d, d); len(fs) != 0 {
				b.Fatalf("%d findings comparing %s with itself", len(fs), d.Header.ID)
			}
		}
	}
}
