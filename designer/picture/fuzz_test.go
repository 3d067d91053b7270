package picture

import (
	"archive/zip"
	"strings"
	"testing"
)

var fuzzLimits = Limits{Archive: 1 << 20, Picture: 64 << 10, XML: 8 << 10, Entries: 64, Depth: 16}

// FuzzDescriptor feeds arbitrary bytes to both XML readers. Besides not
// panicking, a name they accept must be safe to join to a directory.
func FuzzDescriptor(f *testing.F) {
	f.Add([]byte(descriptor("Picture.png")))
	f.Add([]byte(strings.ReplaceAll(descriptor("Picture.zip"), "\n", "\r\n")))
	f.Add([]byte(`<a:ExtPicture xmlns:a="x" xmlns:r="` + readableNS + `"><a:Picture><r:Abs>../x</r:Abs></a:Picture></a:ExtPicture>`))
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "y">]><x>&e;</x>`))
	f.Add(manifest(pv("100.png", `interfaceVariant="" `+glyph(16)), pv("a.svg", `interfaceVariant="version8_2"`)))
	f.Add(manifest(pv("x", `glyphWidth="1048576" glyphHeight="1048576"`)))
	f.Add(nested(20))
	f.Add([]byte("\ufeff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ref, fl := parseDescriptor(b, fuzzLimits); fl == nil {
			if !validFileName(ref) {
				t.Fatalf("accepted unsafe reference %q", ref)
			}
		} else if fl.status != StatusInvalid && fl.status != StatusTooLarge {
			t.Fatalf("descriptor status %q", fl.status)
		}
		if vs, fl := parseManifest(b, fuzzLimits); fl == nil {
			if len(vs) == 0 {
				t.Fatal("valid manifest without variants")
			}
			for _, v := range vs {
				if !validEntryName(v.name) || v.area > maxGlyphSide*maxGlyphSide {
					t.Fatalf("accepted variant %+v", v)
				}
			}
		} else if fl.status != StatusInvalid && fl.status != StatusTooLarge {
			t.Fatalf("manifest status %q", fl.status)
		}
		Sniff(b)
	})
}

// FuzzArchive selects a picture from arbitrary bytes. A ready result must
// be an image of the limits' size with a caption that is a bare name.
func FuzzArchive(f *testing.F) {
	f.Add(mkzip(f, deflated("manifest.xml", manifest(pv("100.png", glyph(16)), pv("400.png", glyph(64)))),
		deflated("100.png", pngImg), deflated("400.png", gifImg)))
	f.Add(mkzip(f, deflated("a.svg", svgImg), deflated("10.png", pngImg), entry{name: "b.bmp", data: bmpImg, method: zip.Store}))
	f.Add(mkzip(f, deflated("manifest.xml", []byte("<Picture/>")), deflated("a.png", pngImg)))
	f.Add(mkzip(f, entry{name: "a.png", data: pngImg, method: 12}))
	f.Add(mkzip(f, deflated("../a.png", pngImg)))
	f.Add(mkzip(f))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := selectFromArchive(b, fuzzLimits)
		switch p.Status {
		case StatusReady:
			mime, ok := Sniff(p.Data)
			if !ok || mime != p.MIMEType {
				t.Fatalf("ready with %q, sniffed %q", p.MIMEType, mime)
			}
			if int64(len(p.Data)) > fuzzLimits.Picture {
				t.Fatalf("ready with %d bytes", len(p.Data))
			}
			if p.FileName == "" || strings.ContainsAny(p.FileName, "/\\") {
				t.Fatalf("caption %q", p.FileName)
			}
		case StatusInvalid, StatusUnsupported, StatusTooLarge:
			if p.Data != nil || p.Detail == "" {
				t.Fatalf("bad failure %+v", p)
			}
		default:
			t.Fatalf("status %q from bytes in memory", p.Status)
		}
	})
}
