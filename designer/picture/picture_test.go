package picture

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestLoadStatuses(t *testing.T) {
	tests := []struct {
		name  string
		desc  string
		files map[string][]byte
		want  Status
		mime  string
	}{
		{"png", descriptor("Picture.png"), map[string][]byte{"Picture.png": pngImg}, StatusReady, MIMEPNG},
		{"jpeg", descriptor("Picture.jpg"), map[string][]byte{"Picture.jpg": jpegImg}, StatusReady, MIMEJPEG},
		{"gif", descriptor("Picture.gif"), map[string][]byte{"Picture.gif": gifImg}, StatusReady, MIMEGIF},
		{"bmp", descriptor("Picture.bmp"), map[string][]byte{"Picture.bmp": bmpImg}, StatusReady, MIMEBMP},
		{"ico", descriptor("Picture.ico"), map[string][]byte{"Picture.ico": icoImg}, StatusReady, MIMEICO},
		{"webp", descriptor("Picture.webp"), map[string][]byte{"Picture.webp": webpImg}, StatusReady, MIMEWebP},
		{"svg", descriptor("Picture.svg"), map[string][]byte{"Picture.svg": svgImg}, StatusReady, MIMESVG},
		{"content decides, not the name", descriptor("Picture.png"), map[string][]byte{"Picture.png": gifImg}, StatusReady, MIMEGIF},
		{"zip", descriptor("Picture.zip"), map[string][]byte{"Picture.zip": mkzip(t, deflated("a.png", pngImg))}, StatusReady, MIMEPNG},
		{"zip named .png is still an archive", descriptor("Picture.png"), map[string][]byte{"Picture.png": mkzip(t, deflated("a.gif", gifImg))}, StatusReady, MIMEGIF},

		{"no descriptor", "", map[string][]byte{"Picture.png": pngImg}, StatusMissing, ""},
		{"referenced file absent", descriptor("Picture.png"), nil, StatusMissing, ""},

		{"unknown format", descriptor("Picture.tif"), map[string][]byte{"Picture.tif": []byte("II*\x00tiff")}, StatusUnsupported, ""},
		{"empty file", descriptor("Picture.png"), map[string][]byte{"Picture.png": {}}, StatusUnsupported, ""},
		{"zip bzip2 entry", descriptor("Picture.zip"), map[string][]byte{"Picture.zip": mkzip(t, entry{name: "a.png", data: pngImg, method: 12})}, StatusUnsupported, ""},

		{"broken xml", "<ExtPicture><Picture><Abs>Picture.png</Abs></Picture>", map[string][]byte{"Picture.png": pngImg}, StatusInvalid, ""},
		{"doctype", `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "Picture.png">]><ExtPicture><Picture><Abs>&e;</Abs></Picture></ExtPicture>`, map[string][]byte{"Picture.png": pngImg}, StatusInvalid, ""},
		{"no Picture element", `<ExtPicture xmlns:xr="` + readableNS + `"><xr:Abs>Picture.png</xr:Abs></ExtPicture>`, map[string][]byte{"Picture.png": pngImg}, StatusInvalid, ""},
		{"no Abs", `<ExtPicture><Picture/></ExtPicture>`, nil, StatusInvalid, ""},
		{"two Abs", `<ExtPicture xmlns:xr="` + readableNS + `"><Picture><xr:Abs>Picture.png</xr:Abs><xr:Abs>Picture.png</xr:Abs></Picture></ExtPicture>`, map[string][]byte{"Picture.png": pngImg}, StatusInvalid, ""},
		{"two Picture", `<ExtPicture><Picture><Abs>Picture.png</Abs></Picture><Picture><Abs>Picture.png</Abs></Picture></ExtPicture>`, map[string][]byte{"Picture.png": pngImg}, StatusInvalid, ""},
		{"empty Abs", descriptor(""), nil, StatusInvalid, ""},
		{"Abs dot-dot", descriptor(".."), nil, StatusInvalid, ""},
		{"Abs parent path", descriptor("../Picture.xml"), nil, StatusInvalid, ""},
		{"Abs absolute", descriptor("/etc/passwd"), nil, StatusInvalid, ""},
		{"Abs subdirectory", descriptor("Picture/Picture.png"), nil, StatusInvalid, ""},
		{"Abs backslash", descriptor(`..\Picture.xml`), nil, StatusInvalid, ""},
		{"Abs is a directory", descriptor("Sub"), nil, StatusInvalid, ""},
		{"bad zip", descriptor("Picture.zip"), map[string][]byte{"Picture.zip": []byte("PK\x03\x04 not really a zip")}, StatusInvalid, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.desc, tt.files)
			if tt.name == "Abs is a directory" {
				mustMkdir(t, filepath.Join(f.ext(), pictureDir, "Sub"))
			}
			p := Load(f.root, f.name)
			wantStatus(t, p, tt.want)
			if tt.want == StatusReady && p.MIMEType != tt.mime {
				t.Fatalf("mime = %q, want %q", p.MIMEType, tt.mime)
			}
		})
	}
}

func TestLoadReadyFields(t *testing.T) {
	f := newFixture(t, descriptor("Picture.svg"), map[string][]byte{"Picture.svg": svgImg})
	wantReady(t, Load(f.root, f.name), MIMESVG, "Picture.svg", svgImg)
}

// The specification's wording puts the file next to Picture.xml; the real
// exports put it in Ext/Picture/. Both are found, the real layout first.
func TestLoadLayouts(t *testing.T) {
	f := newFixture(t, descriptor("Picture.png"), nil)
	mustWrite(t, filepath.Join(f.ext(), "Picture.png"), gifImg)
	wantReady(t, Load(f.root, f.name), MIMEGIF, "Picture.png", gifImg)

	mustWrite(t, filepath.Join(f.ext(), pictureDir, "Picture.png"), pngImg)
	wantReady(t, Load(f.root, f.name), MIMEPNG, "Picture.png", pngImg)
}

func TestLoadSourceRoot(t *testing.T) {
	wantStatus(t, Load("", "x"), StatusInvalid)
	wantStatus(t, Load(filepath.Join(t.TempDir(), "absent"), "x"), StatusMissing)
	file := filepath.Join(t.TempDir(), "file")
	mustWrite(t, file, nil)
	wantStatus(t, Load(file, "x"), StatusMissing) // CommonPictures below a file
}

func TestLoadObjectName(t *testing.T) {
	valid := []string{"Картинка", "ВебСтраница", "Max16", "Picture_1", "图片", "emoji🙂", "Телеграм16х16"}
	for _, n := range valid {
		t.Run("valid "+n, func(t *testing.T) {
			f := newFixture(t, descriptor("Picture.png"), map[string][]byte{"Picture.png": pngImg})
			old := filepath.Join(f.root, "CommonPictures", f.name)
			if n != f.name {
				if err := os.Rename(old, filepath.Join(f.root, "CommonPictures", n)); err != nil {
					t.Fatal(err)
				}
			}
			wantReady(t, Load(f.root, n), MIMEPNG, "Picture.png", pngImg)
		})
	}
	invalid := []string{"", ".", "..", "a/b", `a\b`, "a..b", "../Картинка", "x\x00", "C:x", "\xff\xfe"}
	for _, n := range invalid {
		t.Run("invalid "+n, func(t *testing.T) {
			f := newFixture(t, descriptor("Picture.png"), map[string][]byte{"Picture.png": pngImg})
			wantStatus(t, Load(f.root, n), StatusInvalid)
		})
	}
}

func TestDescriptorForms(t *testing.T) {
	tests := []struct {
		name string
		desc string
		want Status
	}{
		{"designer form", descriptor("Picture.png"), StatusReady},
		{"CRLF and BOM", strings.ReplaceAll(descriptor("Picture.png"), "\n", "\r\n"), StatusReady},
		{"no BOM, no declaration", `<ExtPicture xmlns:xr="` + readableNS + `"><Picture><xr:Abs>Picture.png</xr:Abs></Picture></ExtPicture>`, StatusReady},
		{"prefixed root and other prefix for readable", `<?xml version="1.0" encoding="UTF-8"?>
<ep:ExtPicture xmlns:ep="http://v8.1c.ru/8.3/xcf/extrnprops" xmlns:r="` + readableNS + `">
	<ep:Picture><r:Abs>Picture.png</r:Abs><r:LoadTransparent>true</r:LoadTransparent></ep:Picture>
</ep:ExtPicture>`, StatusReady},
		{"default namespace is readable", `<ExtPicture><Picture xmlns="` + readableNS + `"><Abs>Picture.png</Abs></Picture></ExtPicture>`, StatusReady},
		{"white space around the name", "<ExtPicture><Picture><Abs>\r\n\t Picture.png \r\n</Abs></Picture></ExtPicture>", StatusReady},
		{"comments and CDATA", "<!-- c --><ExtPicture><Picture><Abs><![CDATA[Picture.png]]></Abs><!-- d --></Picture></ExtPicture>", StatusReady},
		{"undeclared prefix", `<ExtPicture><Picture><xr:Abs>Picture.png</xr:Abs></Picture></ExtPicture>`, StatusReady},
		{"windows-1251 declared", `<?xml version="1.0" encoding="windows-1251"?><ExtPicture><Picture><Abs>Picture.png</Abs></Picture></ExtPicture>`, StatusInvalid},
		{"UTF-16 bytes", "\xff\xfe<\x00E\x00", StatusInvalid},
		{"mismatched tags", `<ExtPicture><Picture><Abs>Picture.png</Picture></Abs></ExtPicture>`, StatusInvalid},
		{"text after the root", `<ExtPicture><Picture><Abs>Picture.png</Abs></Picture></ExtPicture>junk`, StatusInvalid},
		{"second root", `<ExtPicture><Picture><Abs>Picture.png</Abs></Picture></ExtPicture><ExtPicture/>`, StatusInvalid},
		{"text before the root", `junk<ExtPicture><Picture><Abs>Picture.png</Abs></Picture></ExtPicture>`, StatusInvalid},
		{"Abs one level too deep", `<ExtPicture><Picture><Inner><Abs>Picture.png</Abs></Inner></Picture></ExtPicture>`, StatusInvalid},
		{"empty document", "", StatusInvalid},
		{"BOM only", "\ufeff", StatusInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "", map[string][]byte{"Picture.png": pngImg})
			mustWrite(t, filepath.Join(f.ext(), descriptorFile), []byte(tt.desc))
			wantStatus(t, Load(f.root, f.name), tt.want)
		})
	}
}

func TestSymlinks(t *testing.T) {
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "secret.png"), pngImg)
	mustWrite(t, filepath.Join(outside, descriptorFile), []byte(descriptor("Picture.png")))

	t.Run("picture outside", func(t *testing.T) {
		f := newFixture(t, descriptor("Picture.png"), nil)
		mustSymlink(t, filepath.Join(outside, "secret.png"), filepath.Join(f.ext(), pictureDir, "Picture.png"))
		wantStatus(t, Load(f.root, f.name), StatusInvalid)
	})
	t.Run("relative link climbing out", func(t *testing.T) {
		f := newFixture(t, descriptor("Picture.png"), nil)
		rel, err := filepath.Rel(filepath.Join(f.ext(), pictureDir), filepath.Join(outside, "secret.png"))
		if err != nil {
			t.Skip(err)
		}
		mustSymlink(t, rel, filepath.Join(f.ext(), pictureDir, "Picture.png"))
		wantStatus(t, Load(f.root, f.name), StatusInvalid)
	})
	t.Run("descriptor outside", func(t *testing.T) {
		f := newFixture(t, "", map[string][]byte{"Picture.png": pngImg})
		mustSymlink(t, filepath.Join(outside, descriptorFile), filepath.Join(f.ext(), descriptorFile))
		wantStatus(t, Load(f.root, f.name), StatusInvalid)
	})
	t.Run("picture directory outside", func(t *testing.T) {
		f := newFixture(t, descriptor("secret.png"), nil)
		if err := os.Remove(filepath.Join(f.ext(), pictureDir)); err != nil {
			t.Fatal(err)
		}
		mustSymlink(t, outside, filepath.Join(f.ext(), pictureDir))
		wantStatus(t, Load(f.root, f.name), StatusInvalid)
	})
	t.Run("CommonPictures outside", func(t *testing.T) {
		root := t.TempDir()
		mustMkdir(t, filepath.Join(outside, "cp", "X", "Ext", pictureDir))
		mustWrite(t, filepath.Join(outside, "cp", "X", "Ext", descriptorFile), []byte(descriptor("Picture.png")))
		mustWrite(t, filepath.Join(outside, "cp", "X", "Ext", pictureDir, "Picture.png"), pngImg)
		mustSymlink(t, filepath.Join(outside, "cp"), filepath.Join(root, "CommonPictures"))
		wantStatus(t, Load(root, "X"), StatusInvalid)
	})
	t.Run("inside the root is fine", func(t *testing.T) {
		f := newFixture(t, descriptor("Picture.png"), nil)
		shared := filepath.Join(f.root, "shared")
		mustMkdir(t, shared)
		mustWrite(t, filepath.Join(shared, "icon.png"), pngImg)
		mustSymlink(t, filepath.Join("..", "..", "..", "..", "shared", "icon.png"), filepath.Join(f.ext(), pictureDir, "Picture.png"))
		wantReady(t, Load(f.root, f.name), MIMEPNG, "Picture.png", pngImg)
	})
	t.Run("source root itself is a symlink", func(t *testing.T) {
		f := newFixture(t, descriptor("Picture.png"), map[string][]byte{"Picture.png": pngImg})
		link := filepath.Join(t.TempDir(), "root")
		mustSymlink(t, f.root, link)
		wantReady(t, Load(link, f.name), MIMEPNG, "Picture.png", pngImg)
	})
	t.Run("dangling link", func(t *testing.T) {
		f := newFixture(t, descriptor("Picture.png"), nil)
		mustSymlink(t, filepath.Join(outside, "absent.png"), filepath.Join(f.ext(), pictureDir, "Picture.png"))
		wantStatus(t, Load(f.root, f.name), StatusMissing)
	})
	t.Run("loop", func(t *testing.T) {
		f := newFixture(t, descriptor("Picture.png"), nil)
		dir := filepath.Join(f.ext(), pictureDir)
		mustSymlink(t, "b", filepath.Join(dir, "Picture.png"))
		mustSymlink(t, "Picture.png", filepath.Join(dir, "b"))
		wantStatus(t, Load(f.root, f.name), StatusInvalid)
	})
}

// Every call reads the current bytes; an IDE showing a stale picture after
// an edit would be a defect.
func TestNoCache(t *testing.T) {
	f := newFixture(t, descriptor("Picture.png"), map[string][]byte{"Picture.png": pngImg})
	wantReady(t, Load(f.root, f.name), MIMEPNG, "Picture.png", pngImg)
	mustWrite(t, filepath.Join(f.ext(), pictureDir, "Picture.png"), gifImg)
	wantReady(t, Load(f.root, f.name), MIMEGIF, "Picture.png", gifImg)
	mustWrite(t, filepath.Join(f.ext(), descriptorFile), []byte(descriptor("Other.svg")))
	mustWrite(t, filepath.Join(f.ext(), pictureDir, "Other.svg"), svgImg)
	wantReady(t, Load(f.root, f.name), MIMESVG, "Other.svg", svgImg)
	if err := os.Remove(filepath.Join(f.ext(), descriptorFile)); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, Load(f.root, f.name), StatusMissing)
}

// The server must never write to the source tree: nothing is created,
// changed or removed by any Load, whatever its outcome.
func TestLoadDoesNotWrite(t *testing.T) {
	f := newFixture(t, descriptor("Picture.zip"), map[string][]byte{
		"Picture.zip": mkzip(t, deflated("manifest.xml", manifest(pv("1.png", glyph(16)))), deflated("1.png", pngImg)),
	})
	before := snapshot(t, f.root)
	wantStatus(t, Load(f.root, f.name), StatusReady)
	wantStatus(t, Load(f.root, "Absent"), StatusMissing)
	wantStatus(t, Load(f.root, ".."), StatusInvalid)
	if after := snapshot(t, f.root); after != before {
		t.Fatalf("tree changed:\n%s\n---\n%s", before, after)
	}
}

func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b.WriteString(p + " " + fi.Mode().String() + " " + fi.ModTime().String())
		if !d.IsDir() {
			b.WriteString(" " + strconv.FormatInt(fi.Size(), 10))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestUnavailable(t *testing.T) {
	t.Run("name too long for the file system", func(t *testing.T) {
		// ENAMETOOLONG is a real I/O error that is not "does not exist",
		// and unlike a permission error it also happens for root.
		f := newFixture(t, descriptor("Picture.png"), map[string][]byte{"Picture.png": pngImg})
		wantStatus(t, Load(f.root, strings.Repeat("Я", 200)), StatusUnavailable)
	})
	t.Run("permission", func(t *testing.T) {
		f := newFixture(t, descriptor("Picture.png"), map[string][]byte{"Picture.png": pngImg})
		p := filepath.Join(f.ext(), pictureDir, "Picture.png")
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(p, 0o644)
		if fh, err := os.Open(p); err == nil {
			fh.Close()
			t.Skip("running with privileges that ignore file modes")
		}
		wantStatus(t, Load(f.root, f.name), StatusUnavailable)
	})
}

func TestIOFailure(t *testing.T) {
	pe := func(e error) error { return &fs.PathError{Op: "open", Path: "x", Err: e} }
	tests := []struct {
		err  error
		want Status
	}{
		{pe(syscall.ENOENT), StatusMissing},
		{fs.ErrNotExist, StatusMissing},
		{pe(syscall.ENOTDIR), StatusMissing},
		{pe(syscall.ELOOP), StatusInvalid},
		{pe(syscall.EACCES), StatusUnavailable},
		{pe(syscall.EPERM), StatusUnavailable},
		{pe(syscall.EIO), StatusUnavailable},
		{errors.New("anything else"), StatusUnavailable},
	}
	for _, tt := range tests {
		if got := ioFailure(tt.err, "f").status; got != tt.want {
			t.Errorf("%v: %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestValidFileName(t *testing.T) {
	for _, s := range []string{"Picture.png", "Picture.zip", "a..png", "Картинка.svg", "x"} {
		if !validFileName(s) {
			t.Errorf("%q refused", s)
		}
	}
	for _, s := range []string{"", ".", "..", "/x", "a/b", `a\b`, `\x`, "x\x00"} {
		if validFileName(s) {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestValidEntryName(t *testing.T) {
	for _, s := range []string{"a.png", "dir/a.png", "dir/", "__MACOSX/._a.png", "a..b.png"} {
		if !validEntryName(s) {
			t.Errorf("%q refused", s)
		}
	}
	for _, s := range []string{"", "/a.png", "../a.png", "a/../../b", "a/./b", "./a", `a\b.png`, "C:a.png", "a//b", "x\x00"} {
		if validEntryName(s) {
			t.Errorf("%q accepted", s)
		}
	}
}
