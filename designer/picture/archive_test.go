package picture

import (
	"archive/zip"
	"bytes"
	"testing"
)

func TestArchiveSelection(t *testing.T) {
	png16, png32, png64 := suffixed(pngImg, 16), suffixed(pngImg, 32), suffixed(pngImg, 64)
	tests := []struct {
		name    string
		entries []entry
		want    Status
		file    string
		data    []byte
	}{
		// With a manifest.
		{"designer layout: default variant, largest glyph", []entry{
			deflated("manifest.xml", manifest(
				pv("85.png", `screenDensity="bldpi" `+glyph(14)),
				pv("100.png", `screenDensity="ldpi" `+glyph(16)),
				pv("400.png", `screenDensity="udpi" `+glyph(64)),
				pv("Picture.png", `interfaceVariant="version8_2" screenDensity="ldpi" `+glyph(16)),
				pv("Picture.png", `interfaceVariant="version8_2_OrdinaryApp" screenDensity="ldpi" `+glyph(16)))),
			deflated("85.png", png16), deflated("100.png", png16), deflated("400.png", png64), deflated("Picture.png", png32),
		}, StatusReady, "400.png", png64},
		{"variant without interfaceVariant beats a larger one with it", []entry{
			deflated("manifest.xml", manifest(pv("big.png", `interfaceVariant="version8_2" `+glyph(64)), pv("small.png", glyph(16)))),
			deflated("big.png", png64), deflated("small.png", png16),
		}, StatusReady, "small.png", png16},
		{"empty interfaceVariant is the default variant", []entry{
			deflated("manifest.xml", manifest(pv("l1.gif", `interfaceVariant="version8_2" `+glyph(64)), pv("u.gif", `interfaceVariant="" `+glyph(32)))),
			deflated("l1.gif", gifImg), deflated("u.gif", suffixed(gifImg, 'u')),
		}, StatusReady, "u.gif", suffixed(gifImg, 'u')},
		{"only interface variants: all compete", []entry{
			deflated("manifest.xml", manifest(pv("a.png", `interfaceVariant="version8_2" `+glyph(16)), pv("b.png", `interfaceVariant="version8_0" `+glyph(32)))),
			deflated("a.png", png16), deflated("b.png", png32),
		}, StatusReady, "b.png", png32},
		{"SVG beats a larger raster", []entry{
			deflated("manifest.xml", manifest(pv("400.png", glyph(64)), pv("vector.svg", glyph(16)))),
			deflated("400.png", png64), deflated("vector.svg", svgImg),
		}, StatusReady, "vector.svg", svgImg},
		{"SVG is recognised by content, not by name", []entry{
			deflated("manifest.xml", manifest(pv("fake.svg", glyph(16)), pv("vector.dat", glyph(8)), pv("400.png", glyph(64)))),
			deflated("fake.svg", png16), deflated("vector.dat", svgImg), deflated("400.png", png64),
		}, StatusReady, "vector.dat", svgImg},
		{"SVG interface variant loses to a raster default one", []entry{
			deflated("manifest.xml", manifest(pv("v.svg", `interfaceVariant="version8_2"`), pv("r.png", glyph(16)))),
			deflated("v.svg", svgImg), deflated("r.png", png16),
		}, StatusReady, "r.png", png16},
		{"largest area, not largest side", []entry{
			deflated("manifest.xml", manifest(pv("wide.png", `glyphWidth="100" glyphHeight="1"`), pv("square.png", `glyphWidth="20" glyphHeight="20"`))),
			deflated("wide.png", png16), deflated("square.png", png32),
		}, StatusReady, "square.png", png32},
		{"equal areas: largest numeric name", []entry{
			deflated("manifest.xml", manifest(pv("85.png", ""), pv("400.png", ""), pv("100.png", ""), pv("Picture.png", ""))),
			deflated("85.png", png16), deflated("400.png", png64), deflated("100.png", png16), deflated("Picture.png", png32),
		}, StatusReady, "400.png", png64},
		{"equal areas, no numeric names: lexical", []entry{
			deflated("manifest.xml", manifest(pv("RegECS_400.png", ""), pv("RegECS_100.png", ""))),
			deflated("RegECS_400.png", png64), deflated("RegECS_100.png", png16),
		}, StatusReady, "RegECS_100.png", png16},
		{"single variant is not sniffed before reading", []entry{
			deflated("manifest.xml", manifest(pv("only.webp", glyph(16)))),
			deflated("only.webp", webpImg),
		}, StatusReady, "only.webp", webpImg},
		{"manifest in upper case", []entry{
			deflated("MANIFEST.XML", manifest(pv("b.png", glyph(16)))),
			deflated("a.svg", svgImg), deflated("b.png", png16),
		}, StatusReady, "b.png", png16},
		{"variant in a subdirectory: caption is the base name", []entry{
			deflated("manifest.xml", manifest(pv("img/400.png", glyph(64)))),
			deflated("img/", nil), deflated("img/400.png", png64),
		}, StatusReady, "400.png", png64},
		{"chosen variant is not an image", []entry{
			deflated("manifest.xml", manifest(pv("readme.txt", glyph(64)), pv("a.png", glyph(16)))),
			deflated("readme.txt", []byte("hello")), deflated("a.png", png16),
		}, StatusUnsupported, "", nil},

		// An invalid manifest is never replaced by some image of the archive.
		{"manifest not XML", []entry{deflated("manifest.xml", []byte("<Picture><PictureVariant name=")), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"manifest with DOCTYPE", []entry{deflated("manifest.xml", []byte(`<!DOCTYPE Picture><Picture><PictureVariant name="a.png"/></Picture>`)), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"manifest without variants", []entry{deflated("manifest.xml", manifest()), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"manifest root is not Picture", []entry{deflated("manifest.xml", []byte(`<Manifest><PictureVariant name="a.png"/></Manifest>`)), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"manifest names a missing entry", []entry{deflated("manifest.xml", manifest(pv("a.png", glyph(16)), pv("gone.png", glyph(8)))), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"manifest names a directory", []entry{deflated("manifest.xml", manifest(pv("img/", glyph(16)))), deflated("img/", nil)}, StatusInvalid, "", nil},
		{"manifest variant without name", []entry{deflated("manifest.xml", manifest(`<PictureVariant screenDensity="ldpi"/>`)), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"manifest variant name escapes", []entry{deflated("manifest.xml", manifest(pv("../a.png", glyph(16)))), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"manifest bad glyph size", []entry{deflated("manifest.xml", manifest(pv("a.png", `glyphWidth="-1" glyphHeight="16"`))), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"manifest absurd glyph size", []entry{deflated("manifest.xml", manifest(pv("a.png", `glyphWidth="99999999999" glyphHeight="16"`))), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"two manifests", []entry{deflated("manifest.xml", manifest(pv("a.png", ""))), deflated("Manifest.xml", manifest(pv("a.png", ""))), deflated("a.png", png16)}, StatusInvalid, "", nil},
		{"manifest compressed with bzip2", []entry{{name: "manifest.xml", data: manifest(pv("a.png", "")), method: 12}, deflated("a.png", png16)}, StatusUnsupported, "", nil},

		// Without a manifest.
		{"no manifest: SVG first", []entry{deflated("400.png", png64), deflated("z.svg", svgImg), deflated("a.png", png16)}, StatusReady, "z.svg", svgImg},
		{"no manifest: largest numeric name", []entry{deflated("85.png", png16), deflated("400.png", png64), deflated("100.png", png16), deflated("Picture.png", png32)}, StatusReady, "400.png", png64},
		{"no manifest: numbers compare as numbers", []entry{deflated("99.png", png16), deflated("0100.png", png64), deflated("1000000000000000000000.png", png32)}, StatusReady, "1000000000000000000000.png", png32},
		{"no manifest: lexical", []entry{deflated("b.png", png32), deflated("a.png", png16), deflated("c.gif", gifImg)}, StatusReady, "a.png", png16},
		{"no manifest: non-images and mac metadata ignored", []entry{
			deflated("__MACOSX/._400.png", png64), deflated("._500.png", png64), deflated("notes.txt", []byte("x")), deflated("dir/", nil), deflated("10.png", png16),
		}, StatusReady, "10.png", png16},
		{"no manifest, no image", []entry{deflated("notes.txt", []byte("x"))}, StatusUnsupported, "", nil},
		{"empty archive", nil, StatusUnsupported, "", nil},

		// Methods and integrity.
		{"stored entries", []entry{{name: "a.png", data: png16, method: zip.Store}}, StatusReady, "a.png", png16},
		{"chosen entry uses bzip2", []entry{deflated("manifest.xml", manifest(pv("a.png", ""))), {name: "a.png", data: png16, method: 12}}, StatusUnsupported, "", nil},
		{"candidate uses LZMA", []entry{{name: "a.png", data: png16, method: 14}}, StatusUnsupported, "", nil},
		{"encrypted entry", []entry{{name: "a.png", data: png16, method: zip.Store, flags: 1}}, StatusUnsupported, "", nil},
		{"corrupt deflate stream", []entry{deflated("manifest.xml", manifest(pv("a.png", ""))), {name: "a.png", data: []byte("\xff\xff\xff not deflate"), method: zip.Deflate, raw: true}}, StatusInvalid, "", nil},
		{"stored entry written raw", []entry{deflated("manifest.xml", manifest(pv("a.png", ""))), {name: "a.png", data: png16, method: zip.Store, raw: true}}, StatusReady, "a.png", png16},

		// Names.
		{"entry with ..", []entry{deflated("a.png", png16), deflated("../evil.png", png16)}, StatusInvalid, "", nil},
		{"absolute entry", []entry{deflated("/etc/evil.png", png16)}, StatusInvalid, "", nil},
		{"backslash entry", []entry{deflated(`..\evil.png`, png16)}, StatusInvalid, "", nil},
		{"drive letter entry", []entry{deflated("C:evil.png", png16)}, StatusInvalid, "", nil},
		{"duplicate entries", []entry{deflated("a.png", png16), deflated("a.png", png32)}, StatusInvalid, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := mkzip(t, tt.entries...)
			p := selectFromArchive(z, DefaultLimits)
			if tt.want == StatusReady {
				mime, _ := Sniff(tt.data)
				wantReady(t, p, mime, tt.file, tt.data)
			} else {
				wantStatus(t, p, tt.want)
			}
			// The same through Load, as the IDE calls it.
			f := newFixture(t, descriptor("Picture.zip"), map[string][]byte{"Picture.zip": z})
			if got := Load(f.root, f.name); got.Status != p.Status || got.FileName != p.FileName {
				t.Fatalf("Load = %q %q, selectFromArchive = %q %q", got.Status, got.FileName, p.Status, p.FileName)
			}
		})
	}
}

func TestArchiveCorruptCRC(t *testing.T) {
	z := mkzip(t, entry{name: "a.png", data: pngImg, method: zip.Store})
	// Flip one byte of the stored payload: the local header is 30 bytes
	// plus the name.
	z[30+len("a.png")+len(pngImg)-1] ^= 0xff
	wantStatus(t, selectFromArchive(z, DefaultLimits), StatusInvalid)
}

// suffixed returns a copy of b with one more byte, so fixtures differ
// without sharing a backing array.
func suffixed(b []byte, c byte) []byte { return append(bytes.Clone(b), c) }

func TestNameOrder(t *testing.T) {
	ordered := []string{"1000.png", "400.png", "0200.png", "200.png", "85.png", "0.png", "00.png", "A.png", "a.png", "b/1x.png", "x"}
	for i := range ordered {
		for j := range ordered {
			if got := nameBefore(ordered[i], ordered[j]); got != (i < j) {
				t.Errorf("nameBefore(%q, %q) = %v", ordered[i], ordered[j], got)
			}
		}
	}
}
