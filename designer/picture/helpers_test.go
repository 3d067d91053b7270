package picture

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Small hand-made images: only the bytes Sniff looks at, plus a tail that
// makes each fixture distinct.
var (
	pngImg  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10png")
	jpegImg = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00jpeg")
	gifImg  = []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;gif")
	bmpImg  = bmpHeader(40)
	icoImg  = []byte("\x00\x00\x01\x00\x01\x00\x10\x10\x00\x00\x01\x00\x20\x00\x04\x00\x00\x00\x16\x00\x00\x00ico!")
	webpImg = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00webp")
	svgImg  = []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"/>`)
)

func bmpHeader(dib uint32) []byte {
	b := make([]byte, 26)
	copy(b, "BM")
	binary.LittleEndian.PutUint32(b[2:], 26)
	binary.LittleEndian.PutUint32(b[14:], dib)
	return b
}

// pngOfSize is a PNG signature padded to exactly n bytes.
func pngOfSize(n int) []byte {
	b := make([]byte, n)
	copy(b, pngImg)
	return b
}

const readableNS = "http://v8.1c.ru/8.3/xcf/readable"

// descriptor is Picture.xml as Designer writes it: BOM, tabs, LF.
func descriptor(ref string) string {
	return "\ufeff" + `<?xml version="1.0" encoding="UTF-8"?>
<ExtPicture xmlns="http://v8.1c.ru/8.3/xcf/extrnprops" xmlns:xr="` + readableNS + `" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="2.20">
	<Picture>
		<xr:Abs>` + ref + `</xr:Abs>
		<xr:LoadTransparent>false</xr:LoadTransparent>
	</Picture>
</ExtPicture>`
}

// fixture is one common picture in a fresh source root.
type fixture struct {
	root string
	name string
}

func (f fixture) ext() string { return filepath.Join(f.root, "CommonPictures", f.name, "Ext") }

// newFixture writes Picture.xml (unless desc is empty) and the files into
// Ext/Picture/, the layout Designer produces.
func newFixture(t *testing.T, desc string, files map[string][]byte) fixture {
	t.Helper()
	f := fixture{root: t.TempDir(), name: "Картинка"}
	dir := filepath.Join(f.ext(), pictureDir)
	mustMkdir(t, dir)
	if desc != "" {
		mustWrite(t, filepath.Join(f.ext(), descriptorFile), []byte(desc))
	}
	for n, b := range files {
		mustWrite(t, filepath.Join(dir, n), b)
	}
	return f
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// entry is one file of a test archive. A method other than Store and
// Deflate, or flags, are written raw so unsupported archives can be built.
type entry struct {
	name   string
	data   []byte
	method uint16
	flags  uint16
	raw    bool // write data as the already-compressed payload
}

func mkzip(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.raw || (e.method != zip.Store && e.method != zip.Deflate) || e.flags != 0 {
			h := &zip.FileHeader{Name: e.name, Method: e.method, Flags: e.flags,
				CRC32: crc32.ChecksumIEEE(e.data), CompressedSize64: uint64(len(e.data)), UncompressedSize64: uint64(len(e.data))}
			fw, err := w.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fw.Write(e.data); err != nil {
				t.Fatal(err)
			}
			continue
		}
		fw, err := w.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func deflated(name string, data []byte) entry {
	return entry{name: name, data: data, method: zip.Deflate}
}

// pv is one PictureVariant line; attrs are written verbatim.
func pv(name, attrs string) string {
	return fmt.Sprintf("\t<PictureVariant name=%q %s/>\n", name, attrs)
}

func manifest(variants ...string) []byte {
	return []byte("\ufeff<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<Picture>\n" +
		strings.Join(variants, "") + "</Picture>")
}

func glyph(n int) string { return fmt.Sprintf(`glyphWidth="%d" glyphHeight="%d"`, n, n) }

func wantStatus(t *testing.T, p Preview, want Status) {
	t.Helper()
	if p.Status != want {
		t.Fatalf("status = %q (%s), want %q", p.Status, p.Detail, want)
	}
	if want != StatusReady && (p.Data != nil || p.MIMEType != "" || p.FileName != "") {
		t.Fatalf("non-ready preview carries content: %+v", p)
	}
	if want != StatusReady && p.Detail == "" {
		t.Fatalf("non-ready preview without detail")
	}
}

func wantReady(t *testing.T, p Preview, mime, file string, data []byte) {
	t.Helper()
	wantStatus(t, p, StatusReady)
	if p.MIMEType != mime || p.FileName != file || !bytes.Equal(p.Data, data) {
		t.Fatalf("got %s %q (%d bytes), want %s %q (%d bytes)", p.MIMEType, p.FileName, len(p.Data), mime, file, len(data))
	}
}
