package picture

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// padTo appends white space after the root element, which every XML parser
// must accept, until doc is exactly n bytes long.
func padTo(t testing.TB, doc []byte, n int64) []byte {
	t.Helper()
	if int64(len(doc)) > n {
		t.Fatalf("document of %d bytes is over %d already", len(doc), n)
	}
	return append(bytes.Clone(doc), bytes.Repeat([]byte("\n"), int(n)-len(doc))...)
}

// zipOfSize builds an archive of exactly n bytes: one small PNG and a
// stored filler that is not an image (and therefore never chosen).
func zipOfSize(t testing.TB, n int64) []byte {
	t.Helper()
	png := entry{name: "1.png", data: pngImg, method: zip.Deflate}
	base := mkzip(t, png, entry{name: "filler.bin", method: zip.Store})
	extra := n - int64(len(base))
	if extra < 0 {
		t.Fatalf("cannot build an archive of %d bytes", n)
	}
	z := mkzip(t, png, entry{name: "filler.bin", data: make([]byte, extra), method: zip.Store})
	if int64(len(z)) != n {
		t.Fatalf("archive is %d bytes, want %d", len(z), n)
	}
	return z
}

func nested(depth int) []byte {
	return []byte(strings.Repeat("<a>", depth) + strings.Repeat("</a>", depth))
}

// Every limit is tested at the limit and one past it, with small values to
// keep fixtures tiny and, where that is cheap, with the real defaults.
//
//contract:proves eska-ide-api.limits.picture
func TestLimits(t *testing.T) {
	small := Limits{Archive: 4096, Picture: 1024, XML: 900, Entries: 8, Depth: 5}
	limits := []struct {
		name string
		l    Limits
	}{{"small", small}, {"default", DefaultLimits}}

	for _, lim := range limits {
		l := lim.l
		t.Run(lim.name+"/Picture.xml", func(t *testing.T) {
			for _, tc := range []struct {
				size int64
				want Status
			}{{l.XML, StatusReady}, {l.XML + 1, StatusTooLarge}} {
				doc := padTo(t, []byte(descriptor("Picture.png")), tc.size)
				f := newFixture(t, string(doc), map[string][]byte{"Picture.png": pngImg})
				wantStatus(t, l.Load(f.root, f.name), tc.want)
			}
		})
		t.Run(lim.name+"/manifest.xml", func(t *testing.T) {
			for _, tc := range []struct {
				size int64
				want Status
			}{{l.XML, StatusReady}, {l.XML + 1, StatusTooLarge}} {
				m := padTo(t, manifest(pv("1.png", glyph(16))), tc.size)
				z := mkzip(t, deflated("manifest.xml", m), deflated("1.png", pngImg))
				wantStatus(t, selectFromArchive(z, l), tc.want)
			}
		})
		t.Run(lim.name+"/loose picture", func(t *testing.T) {
			for _, tc := range []struct {
				size int64
				want Status
			}{{l.Picture, StatusReady}, {l.Picture + 1, StatusTooLarge}} {
				f := newFixture(t, descriptor("Picture.png"), map[string][]byte{"Picture.png": pngOfSize(int(tc.size))})
				p := l.Load(f.root, f.name)
				wantStatus(t, p, tc.want)
				if tc.want == StatusReady && int64(len(p.Data)) != tc.size {
					t.Fatalf("data is %d bytes, want %d", len(p.Data), tc.size)
				}
			}
		})
		t.Run(lim.name+"/picture in archive", func(t *testing.T) {
			for _, tc := range []struct {
				size int64
				want Status
			}{{l.Picture, StatusReady}, {l.Picture + 1, StatusTooLarge}} {
				z := mkzip(t, deflated("manifest.xml", manifest(pv("1.png", ""))), deflated("1.png", pngOfSize(int(tc.size))))
				wantStatus(t, selectFromArchive(z, l), tc.want)
			}
		})
		t.Run(lim.name+"/archive", func(t *testing.T) {
			for _, tc := range []struct {
				size int64
				want Status
			}{{l.Archive, StatusReady}, {l.Archive + 1, StatusTooLarge}} {
				z := zipOfSize(t, tc.size)
				wantStatus(t, selectFromArchive(z, l), tc.want)
				f := newFixture(t, descriptor("Picture.zip"), map[string][]byte{"Picture.zip": z})
				wantStatus(t, l.Load(f.root, f.name), tc.want)
			}
		})
		t.Run(lim.name+"/entries", func(t *testing.T) {
			for _, tc := range []struct {
				n    int
				want Status
			}{{l.Entries, StatusReady}, {l.Entries + 1, StatusTooLarge}} {
				es := []entry{deflated("1.png", pngImg)}
				for i := 1; i < tc.n; i++ {
					es = append(es, entry{name: fmt.Sprintf("f%d.txt", i), method: zip.Store})
				}
				wantStatus(t, selectFromArchive(mkzip(t, es...), l), tc.want)
			}
		})
		t.Run(lim.name+"/depth", func(t *testing.T) {
			if _, err := parseXML(nested(l.Depth), l); err != nil {
				t.Fatalf("depth %d refused: %v", l.Depth, err)
			}
			if _, err := parseXML(nested(l.Depth+1), l); err == nil {
				t.Fatalf("depth %d accepted", l.Depth+1)
			}
		})
	}

	// A loose file between the picture and the archive limits is judged by
	// its content: an archive passes, an image does not.
	t.Run("archive limit applies to archives only", func(t *testing.T) {
		z := zipOfSize(t, small.Archive)
		f := newFixture(t, descriptor("Picture.png"), map[string][]byte{"Picture.png": z, "Other.png": pngOfSize(int(small.Archive))})
		wantStatus(t, small.Load(f.root, f.name), StatusReady)
		mustWrite(t, f.ext()+"/"+descriptorFile, []byte(descriptor("Other.png")))
		wantStatus(t, small.Load(f.root, f.name), StatusTooLarge)
	})
	t.Run("zero limits mean defaults", func(t *testing.T) {
		if got := (Limits{}).withDefaults(); got != DefaultLimits {
			t.Fatalf("got %+v", got)
		}
	})
}

func TestDefaultLimitValues(t *testing.T) {
	want := Limits{Archive: 32 * 1024 * 1024, Picture: 8 * 1024 * 1024, XML: 64 * 1024, Entries: 512, Depth: 32}
	if DefaultLimits != want {
		t.Fatalf("DefaultLimits = %+v, want %+v", DefaultLimits, want)
	}
}
