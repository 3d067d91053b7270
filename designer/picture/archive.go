package picture

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"path"
	"strings"
)

const manifestName = "manifest.xml"

// selectFromArchive chooses one image from a picture archive held in
// memory. Nothing is extracted to disk: the server must never write.
//
// With a manifest the choice follows the platform's own preference: the
// default variant (no interfaceVariant) over the 8.2-era ones, a vector
// image over raster ones, then the largest declared glyph. Without a
// manifest there is no declared intent, so the choice is a fixed order that
// favours SVG and then the highest scale number, which is how Designer names
// density variants (85.png ... 400.png).
func selectFromArchive(data []byte, l Limits) Preview {
	if int64(len(data)) > l.Archive {
		return fail(StatusTooLarge, "archive is over the size limit")
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fail(StatusInvalid, "archive is not a readable ZIP file")
	}
	if len(zr.File) > l.Entries {
		return fail(StatusTooLarge, "archive has too many entries")
	}
	if err != nil {
		return fail(StatusInvalid, "archive has an entry name that escapes the archive")
	}
	entries := make(map[string]*zip.File, len(zr.File))
	var manifest *zip.File
	for _, f := range zr.File {
		if !validEntryName(f.Name) {
			return fail(StatusInvalid, "archive has an entry name that escapes the archive")
		}
		if _, dup := entries[f.Name]; dup {
			return fail(StatusInvalid, "archive has two entries with the same name")
		}
		entries[f.Name] = f
		if strings.EqualFold(f.Name, manifestName) {
			if manifest != nil {
				return fail(StatusInvalid, "archive has more than one manifest.xml")
			}
			manifest = f
		}
	}
	var chosen *zip.File
	var fl *failure
	if manifest != nil {
		chosen, fl = chooseByManifest(manifest, entries, l)
	} else {
		chosen, fl = chooseWithoutManifest(zr.File)
	}
	if fl != nil {
		return fl.preview()
	}
	b, fl := readEntry(chosen, l.Picture, "the chosen archive entry")
	if fl != nil {
		return fl.preview()
	}
	mime, ok := Sniff(b)
	if !ok {
		return fail(StatusUnsupported, "the chosen archive entry is not a supported image format")
	}
	return Preview{Status: StatusReady, MIMEType: mime, Data: b, FileName: path.Base(chosen.Name)}
}

func chooseByManifest(m *zip.File, entries map[string]*zip.File, l Limits) (*zip.File, *failure) {
	b, fl := readEntry(m, l.XML, "manifest.xml")
	if fl != nil {
		return nil, fl
	}
	vs, fl := parseManifest(b, l)
	if fl != nil {
		return nil, fl
	}
	// Every variant must exist: a manifest that lies about one entry cannot
	// be trusted about the others.
	for _, v := range vs {
		if f, ok := entries[v.name]; !ok || strings.HasSuffix(f.Name, "/") {
			return nil, failf(StatusInvalid, "manifest.xml names an entry the archive does not have")
		}
	}
	var plain []variant
	for _, v := range vs {
		if v.iface == "" {
			plain = append(plain, v)
		}
	}
	if len(plain) > 0 {
		vs = plain
	}
	// The same file may be listed for several interface variants; keep it
	// once, with the largest area declared for it.
	byName := map[string]variant{}
	var order []string
	for _, v := range vs {
		if old, ok := byName[v.name]; !ok {
			byName[v.name] = v
			order = append(order, v.name)
		} else if v.area > old.area {
			byName[v.name] = v
		}
	}
	if len(order) > 1 {
		var svg []string
		for _, n := range order {
			isSVG, fl := entryIsSVG(entries[n])
			if fl != nil {
				return nil, fl
			}
			if isSVG {
				svg = append(svg, n)
			}
		}
		if len(svg) > 0 {
			order = svg
		}
	}
	best := order[0]
	for _, n := range order[1:] {
		a, b := byName[n].area, byName[best].area
		if a > b || (a == b && nameBefore(n, best)) {
			best = n
		}
	}
	return entries[best], nil
}

func chooseWithoutManifest(files []*zip.File) (*zip.File, *failure) {
	var images, svg []*zip.File
	for _, f := range files {
		if strings.HasSuffix(f.Name, "/") || isMacMetadata(f.Name) {
			continue
		}
		head, fl := readHead(f)
		if fl != nil {
			return nil, fl
		}
		mime, ok := Sniff(head)
		if !ok {
			continue
		}
		images = append(images, f)
		if mime == MIMESVG {
			svg = append(svg, f)
		}
	}
	if len(svg) > 0 {
		images = svg
	}
	if len(images) == 0 {
		return nil, failf(StatusUnsupported, "archive has no manifest and no supported image")
	}
	best := images[0]
	for _, f := range images[1:] {
		if nameBefore(f.Name, best.Name) {
			best = f
		}
	}
	return best, nil
}

// isMacMetadata recognises the AppleDouble files macOS adds to archives
// (__MACOSX/._name); they are not pictures even when they sniff as one.
func isMacMetadata(name string) bool {
	return strings.HasPrefix(name, "__MACOSX/") || strings.HasPrefix(path.Base(name), "._")
}

// nameBefore orders candidates: a numeric base name (digits before the
// extension) before a non-numeric one, larger numbers first, then plain
// byte order of the whole name so the result never depends on the order of
// entries in the archive.
func nameBefore(a, b string) bool {
	na, aok := numericStem(a)
	nb, bok := numericStem(b)
	if aok != bok {
		return aok
	}
	if aok {
		if len(na) != len(nb) {
			return len(na) > len(nb)
		}
		if na != nb {
			return na > nb
		}
	}
	return a < b
}

// numericStem returns the digits of a name like "400.png" without leading
// zeros, so that numbers of any length compare without overflow.
func numericStem(name string) (string, bool) {
	stem := path.Base(name)
	if i := strings.IndexByte(stem, '.'); i >= 0 {
		stem = stem[:i]
	}
	if stem == "" {
		return "", false
	}
	for i := 0; i < len(stem); i++ {
		if stem[i] < '0' || stem[i] > '9' {
			return "", false
		}
	}
	stem = strings.TrimLeft(stem, "0")
	return stem, true
}

func entryIsSVG(f *zip.File) (bool, *failure) {
	head, fl := readHead(f)
	if fl != nil {
		return false, fl
	}
	mime, ok := Sniff(head)
	return ok && mime == MIMESVG, nil
}

// validEntryName refuses names that would leave the archive if anybody
// extracted it, and backslashes, which some tools treat as separators.
// One such entry makes the whole archive suspect, so callers reject the
// archive rather than skipping the entry.
func validEntryName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") || strings.HasPrefix(name, "/") {
		return false
	}
	if len(name) >= 2 && name[1] == ':' {
		return false
	}
	for _, seg := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// checkMethod keeps to what archive/zip decompresses itself; a registered
// third-party decompressor is never used on untrusted input.
func checkMethod(f *zip.File, what string) *failure {
	if f.Flags&0x1 != 0 {
		return failf(StatusUnsupported, what+" is encrypted")
	}
	if f.Method != zip.Store && f.Method != zip.Deflate {
		return failf(StatusUnsupported, what+" uses a compression method other than Stored or Deflate")
	}
	return nil
}

// readEntry decompresses a whole entry of at most limit bytes. The declared
// size is checked first, and the read is bounded anyway because the
// declared size is only a claim.
func readEntry(f *zip.File, limit int64, what string) ([]byte, *failure) {
	if fl := checkMethod(f, what); fl != nil {
		return nil, fl
	}
	if f.UncompressedSize64 > uint64(limit) {
		return nil, failf(StatusTooLarge, what+" is over the size limit")
	}
	rc, err := f.Open()
	if err != nil {
		return nil, zipFailure(err, what)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, zipFailure(err, what)
	}
	if int64(len(b)) > limit {
		return nil, failf(StatusTooLarge, what+" is over the size limit")
	}
	return b, nil
}

// readHead decompresses no more than Sniff looks at.
func readHead(f *zip.File) ([]byte, *failure) {
	const what = "an archive entry"
	if fl := checkMethod(f, what); fl != nil {
		return nil, fl
	}
	rc, err := f.Open()
	if err != nil {
		return nil, zipFailure(err, what)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, sniffWindow))
	if err != nil {
		return nil, zipFailure(err, what)
	}
	return b, nil
}

func zipFailure(err error, what string) *failure {
	if errors.Is(err, zip.ErrAlgorithm) {
		return failf(StatusUnsupported, what+" uses an unsupported compression method")
	}
	return failf(StatusInvalid, what+" is corrupt")
}
